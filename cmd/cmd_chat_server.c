/* pressmark chat-server: VolanoMark's netserver side alone. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "lib/units.h"
#include "workloads/chat/server.h"

int cmd_chat_server(int argc, char **argv)
{
    struct chat_server_config cfg = { .listen = NULL, .heap = 64ull << 20, .msg_alloc = 1024, .report_fd = -1 };
    static const struct option longopts[] = {
        { "listen", required_argument, NULL, 'l' }, { "once", no_argument, NULL, 'o' },
        { "heap", required_argument, NULL, 'H' }, { "msg-alloc", required_argument, NULL, 'a' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': cfg.listen = optarg; break;
        case 'o': cfg.once = true; break;
        case 'H':
            if (pm_parse_size(optarg, 0, &v) < 0)
                return pm_usage("chat-server", "--heap: '%s' is not a size (accepted: %s)", optarg, PM_SIZE_FORMS);
            cfg.heap = v;
            break;
        case 'a':
            if (pm_parse_size(optarg, 0, &v) < 0 || v < 8 || v > (1u << 20))
                return pm_usage("chat-server", "--msg-alloc: '%s' is not a size (accepted: 8 bytes to 1M)", optarg);
            cfg.msg_alloc = v;
            break;
        case 'h':
            printf("usage: pressmark chat-server --listen ADDR:PORT [--once] [--heap SIZE] [--msg-alloc SIZE]\n\n"
                   "A VolanoMark 2.13.4 protocol chat server (the netserver side), for clients on other\n"
                   "machines or network namespaces: pressmark run chat --server ADDR:PORT, or the\n"
                   "original COM.volano.Mark. Prints the port it listens on; runs until SIGINT or\n"
                   "SIGTERM, or with --once until its first clients have all gone, then prints its\n"
                   "heap collections, connections and chats.\n");
            return 0;
        default:
            return pm_usage("chat-server", "unknown option or missing value '%s' (see 'pressmark chat-server --help')",
                            argv[optind - 1]);
        }
    }
    if (!cfg.listen)
        return pm_usage("chat-server", "--listen ADDR:PORT is needed (e.g. --listen 0.0.0.0:8000)");
    return chat_server_main(&cfg);
}
