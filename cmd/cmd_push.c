#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "store/db.h"
#include "lib/units.h"
#include "reports/push.h"

int cmd_push(int argc, char **argv)
{
    const char *token_file = NULL;
    struct push_request rq = { .batch_lines = 5000 };
    static const struct option longopts[] = {
        { "samples", no_argument, NULL, 's' }, { "token-file", required_argument, NULL, 't' },
        { "batch", required_argument, NULL, 'b' }, { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's': rq.samples = true; break;
        case 't': token_file = optarg; break;
        case 'b':
            if (pm_parse_uint(optarg, 1, 1000000, &v) < 0)
                return pm_usage("push", "--batch: '%s' is not a line count (accepted: 1 to 1000000)", optarg);
            rq.batch_lines = v;
            break;
        case 'd': pm_set_db_path(optarg); break;
        case 'h':
            printf("usage: pressmark push URL [--samples] [--token-file FILE] [--batch N] [--db PATH]\n\n"
                   "Sends every run not yet delivered to URL in InfluxDB line protocol, which\n"
                   "InfluxDB 1.x (http://host:8086/write?db=NAME), InfluxDB 2.x\n"
                   "(http://host:8086/api/v2/write?org=ORG&bucket=BUCKET) and VictoriaMetrics\n"
                   "(http://host:8428/write) accept. A run is one point: measurement pressmark_WORKLOAD,\n"
                   "tags host, kernel, label, run (its UUID), status, workload, its metrics as fields,\n"
                   "stamped with its start. --samples adds every tick (pressmark_WORKLOAD_samples).\n"
                   "Batches of N lines (5000), gzip-compressed, retried with backoff on 5xx and\n"
                   "connection errors. What was delivered is remembered per URL: runs the server did\n"
                   "not take stay queued for the next push, and no run is sent twice. The token comes\n"
                   "from PRESSMARK_PUSH_TOKEN or --token-file, never from the command line.\n");
            return 0;
        default:
            return pm_usage("push", "unknown option or missing value '%s' (see 'pressmark push --help')", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return pm_usage("push", "one URL is needed (e.g. http://127.0.0.1:8428/write)");
    rq.url = argv[optind];
    if (strncmp(rq.url, "http://", 7) != 0 && strncmp(rq.url, "https://", 8) != 0)
        return pm_usage("push", "'%s' is not a URL (accepted: http:// or https://)", rq.url);
    char token[1024];
    struct pm_err err;
    if (push_token(token_file, token, sizeof token, &err) < 0)
        return pm_usage("push", "%s", err.msg);
    rq.token = token;
    struct pm_db db;
    if (pm_db_open(&db, pm_db_path(), false, &err) < 0) {
        fprintf(stderr, "pressmark push: %s\n", err.msg);
        return 2;
    }
    int runs;
    size_t lines;
    int rc = push_runs(&db, &rq, &runs, &lines, &err);
    memset(token, 0, sizeof token);
    if (rc < 0)
        fprintf(stderr, "pressmark push: %s (%d run%s delivered before that; the rest stay queued)\n", err.msg, runs,
                runs == 1 ? "" : "s");
    else
        printf("pushed %d run%s (%zu line%s) to %s\n", runs, runs == 1 ? "" : "s", lines, lines == 1 ? "" : "s", rq.url);
    pm_db_close(&db);
    return rc < 0 ? 1 : 0;
}
