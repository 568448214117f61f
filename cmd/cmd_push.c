#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "store/db.h"
#include "lib/units.h"
#include "export/push.h"

struct push_opts {
    char token_file[4096];
    bool samples, plain_http_token;
    uint64_t batch;
};

#define PU(field) offsetof(struct push_opts, field)
static const struct opt push_options[] = {
    { .name = "samples", .type = OPT_FLAG, .offset = PU(samples), .help = "every tick too (pressmark_WORKLOAD_samples)" },
    { .name = "token-file", .type = OPT_STRING, .offset = PU(token_file),
      .size = sizeof(((struct push_opts *)0)->token_file), .metavar = "FILE", .help = "the token, from a file" },
    { .name = "allow-plain-http-token", .type = OPT_FLAG, .offset = PU(plain_http_token),
      .help = "send the token over plain http to another machine (it can be read on the way)" },
    { .name = "batch", .type = OPT_U64, .offset = PU(batch), .metavar = "N", .def = "5000", .min = 1, .max = 1000000,
      .noun = "line count", .help = "lines per request" },
    { .type = OPT_END },
};

static const char push_usage[] =
    "usage: pressmark push URL [--samples] [--token-file FILE] [--batch N] [--db PATH]\n\n"
    "Sends every run not yet delivered to URL in InfluxDB line protocol, which\n"
    "InfluxDB 1.x (http://host:8086/write?db=NAME), InfluxDB 2.x\n"
    "(http://host:8086/api/v2/write?org=ORG&bucket=BUCKET) and VictoriaMetrics\n"
    "(http://host:8428/write) accept. A run is one point: measurement pressmark_WORKLOAD,\n"
    "tags host, kernel, label, run (its UUID), status, workload, its metrics as fields,\n"
    "stamped with its start. --samples adds every tick (pressmark_WORKLOAD_samples).\n"
    "Batches of N lines, gzip-compressed, retried with backoff on 5xx and\n"
    "connection errors. What was delivered is remembered per URL: runs the server did\n"
    "not take stay queued for the next push, and no run is sent twice. The token comes\n"
    "from PRESSMARK_PUSH_TOKEN or --token-file, never from the command line.\n";

int cmd_push(int argc, char **argv)
{
    struct push_opts o = { .samples = false };
    const struct cmd_group groups[] = { { NULL, push_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = { .name = "push", .usage = push_usage, .groups = groups, .ngroups = 2,
                                   .max_args = -1 };
    int optind_ = cmd_parse(&spec, argc, argv);
    if (optind_ < 0)
        return cmd_parse_exit(optind_);
    struct pm_err err;
    struct push_request rq = { .batch_lines = o.batch, .samples = o.samples };
    const char *token_file = o.token_file[0] ? o.token_file : NULL;
    if (argc - optind_ != 1)
        return cli_usage("push", "one URL is needed (e.g. http://127.0.0.1:8428/write)");
    rq.url = argv[optind_];
    if (strncmp(rq.url, "http://", 7) != 0 && strncmp(rq.url, "https://", 8) != 0)
        return cli_usage("push", "'%s' is not a URL (accepted: http:// or https://)", rq.url);
    char token[1024];
    if (push_token(token_file, token, sizeof token, &err) < 0 ||
        (token[0] && push_token_allowed(rq.url, o.plain_http_token, &err) < 0)) {
        memset(token, 0, sizeof token);
        return cli_usage("push", "%s", err.msg);
    }
    rq.token = token;
    struct pm_db db;
    /* push writes what it delivered: the one reading command that opens
     * the database for writing. */
    if (store_db_open(&db, store_db_path(), false, &err) < 0) {
        memset(token, 0, sizeof token);
        return cli_usage("push", "%s", err.msg);
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
    store_db_close(&db);
    return rc < 0 ? 1 : 0;
}
