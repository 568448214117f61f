/* pressmark chat-server: VolanoMark's netserver side alone. */
#include <stddef.h>
#include <stdio.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "workloads/chat/server.h"

struct server_opts {
    char listen[256];
    bool once;
    uint64_t heap, msg_alloc;
};

#define SO(field) offsetof(struct server_opts, field)
static const struct opt server_options[] = {
    { .name = "listen", .type = OPT_STRING, .offset = SO(listen), .size = sizeof(((struct server_opts *)0)->listen),
      .metavar = "ADDR:PORT", .help = "where to listen (port 0 picks a free one)" },
    { .name = "once", .type = OPT_FLAG, .offset = SO(once), .help = "exit when the first clients have all gone" },
    { .name = "heap", .type = OPT_SIZE, .offset = SO(heap), .metavar = "SIZE", .def = "64M",
      .help = "JVM-like heap, cycled by every message" },
    { .name = "msg-alloc", .type = OPT_SIZE, .offset = SO(msg_alloc), .metavar = "SIZE", .def = "1K", .min = 8,
      .max = 1 << 20, .extra = "8 bytes to 1M", .help = "bytes allocated and written per message" },
    { .type = OPT_END },
};

int cmd_chat_server(int argc, char **argv)
{
    struct server_opts o = { .once = false };
    const struct cmd_group groups[] = { { NULL, server_options, &o } };
    const struct cmd_spec spec = {
        .name = "chat-server", .groups = groups, .ngroups = 1, .max_args = 0,
        .usage = "usage: pressmark chat-server --listen ADDR:PORT [--once] [--heap SIZE] [--msg-alloc SIZE]\n\n"
                 "A VolanoMark 2.13.4 protocol chat server (the netserver side), for clients on other\n"
                 "machines or network namespaces: pressmark run chat --server ADDR:PORT, or the\n"
                 "original COM.volano.Mark. Prints the port it listens on; runs until SIGINT or\n"
                 "SIGTERM, or with --once until its first clients have all gone, then prints its\n"
                 "heap collections, connections and chats.\n",
    };
    int r = cmd_parse(&spec, argc, argv);
    if (r < 0)
        return cmd_parse_exit(r);
    if (!o.listen[0])
        return cli_usage("chat-server", "--listen ADDR:PORT is needed (e.g. --listen 0.0.0.0:8000)");
    struct chat_server_config cfg = { .listen = o.listen, .once = o.once, .heap = o.heap, .msg_alloc = o.msg_alloc,
                                      .report_fd = -1 };
    return chat_server_main(&cfg);
}
