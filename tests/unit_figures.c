/* A tool's own figures from its own output: each parser on real output of
 * the Debian 12 tool (tests/fixtures/figures/, README there), the values
 * exactly the numbers in the fixture's text, and the tools' error outputs,
 * cut-short outputs and crafted ones failing with a message that names
 * the parser, the figure and what was missing. Then --figure's REGEX and
 * json:PATH. */
#include <float.h>
#include "figures/figures.h"
#include "tests/tap.h"

#define FX "tests/fixtures/figures/"

static struct pm_err err;

/* parser over the fixture file (and log, a second fixture, when not
 * NULL) into s, which is emptied first; the parser's return. */
static int parse(const char *parser, const char *file, const char *log, struct figure_set *s)
{
    size_t len, log_len = 0;
    char *text = slurp(file, &len), *l = log ? slurp(log, &log_len) : NULL;
    figure_set_free(s);
    err.msg[0] = '\0';
    int rc = figures_parse_log(parser, text, len, l, log_len, s, &err);
    free(text);
    free(l);
    return rc;
}

/* parser over a string. */
static int parse_str(const char *parser, const char *text, struct figure_set *s)
{
    figure_set_free(s);
    err.msg[0] = '\0';
    return figures_parse(parser, text, strlen(text), s, &err);
}

#define like_err(want) ok(strstr(err.msg, want) != NULL, "  the error says '%s' (%s)", want, err.msg)

static double fig(const struct figure_set *s, const char *name)
{
    const struct figure *f = figure_set_find(s, name);
    return f ? f->value : NAN;
}

/* Exactly the fixture's number: tolerance 0. */
#define is_fig(s, name, want) is_num(fig(s, name), want, 0, "%s = %s", name, #want)

static void unit_dir(const struct figure_set *s, const char *name, const char *unit, enum metric_dir dir)
{
    const struct figure *f = figure_set_find(s, name);
    ok(f && strcmp(f->unit, unit) == 0 && f->dir == dir, "  %s in %s, %s is better", name, unit,
       metric_dir_name(dir));
}

static void registry(void)
{
    char names[256];
    figures_parsers(names, sizeof names);
    is_str(names, "fio, stress-ng, redis-benchmark, pgbench, sysbench, hackbench, memcaslap",
           "the parsers, in help's order");
    for (size_t i = 0; figures_parsers_table[i]; i++) {
        const struct figure_parser *p = figures_parsers_table[i];
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%s.", p->name);
        for (char *c = prefix; *c; c++)
            *c = *c == '-' ? '_' : *c;
        struct figure probe;
        bool good = p->n > 0 && p->reads && p->parse;
        for (size_t k = 0; k < p->n; k++) {
            good = good && strncmp(p->defs[k].name, prefix, strlen(prefix)) == 0 && *p->defs[k].unit &&
                   strlen(p->defs[k].unit) < sizeof probe.unit && p->defs[k].dir != PM_NEITHER &&
                   p->defs[k].meaning && *p->defs[k].meaning;
            for (size_t j = 0; j < k; j++)
                good = good && strcmp(p->defs[j].name, p->defs[k].name) != 0;
        }
        ok(good, "%s: %zu figures declared, each %s..., with a unit, a direction and a meaning, none twice", p->name,
           p->n, prefix);
        ok(figures_parser(p->name) == p, "  found by its name");
    }
    struct figure_set s = { 0 };
    is_num(parse_str("iperf", "x", &s), -1, 0, "an unknown parser is refused");
    is_str(err.msg, "unknown figures parser 'iperf' (known: fio, stress-ng, redis-benchmark, pgbench, sysbench, "
           "hackbench, memcaslap)", "  naming the parsers there are");
    figure_set_free(&s);
}

static void fio(void)
{
    struct figure_set s = { 0 };
    is_num(parse("fio", FX "fio-3.33.json", NULL, &s), 0, 0, "fio: two jobs' JSON read");
    is_num(s.n, 14, 0, "  14 figures: 5 of the reading job, 5 of the writing one, 2 sums each way");
    is_fig(&s, "fio.rand_read_4k.read_iops", 1910.044978);
    is_fig(&s, "fio.rand_read_4k.read_bw_kib_s", 7640);
    is_fig(&s, "fio.rand_read_4k.read_clat_p50_us", 70.144);
    is_fig(&s, "fio.rand_read_4k.read_clat_p99_us", 6455.296);
    is_fig(&s, "fio.rand_read_4k.read_clat_p999_us", 31326.208);
    is_fig(&s, "fio.seq_write.write_iops", 203605.697151);
    is_fig(&s, "fio.seq_write.write_bw_kib_s", 814422);
    is_fig(&s, "fio.seq_write.write_clat_p50_us", 2.416);
    is_fig(&s, "fio.seq_write.write_clat_p99_us", 31.616);
    is_fig(&s, "fio.seq_write.write_clat_p999_us", 98.816);
    is_fig(&s, "fio.read_iops", 1910.044978);
    is_fig(&s, "fio.read_bw_kib_s", 7640);
    is_fig(&s, "fio.write_iops", 203605.697151);
    is_fig(&s, "fio.write_bw_kib_s", 814422);
    ok(!figure_set_find(&s, "fio.rand_read_4k.write_iops") && !figure_set_find(&s, "fio.seq_write.read_iops"),
       "  no figure for the way a job did no I/O (not a 0)");
    unit_dir(&s, "fio.rand_read_4k.read_iops", "ops/s", PM_HIGHER);
    unit_dir(&s, "fio.seq_write.write_bw_kib_s", "KiB/s", PM_HIGHER);
    unit_dir(&s, "fio.seq_write.write_clat_p999_us", "us", PM_LOWER);

    is_num(parse("fio", FX "fio-3.33-numjobs.json", NULL, &s), 0, 0, "fio: numjobs=2, two jobs of one name");
    is_num(s.n, 12, 0, "  12 figures");
    is_fig(&s, "fio.same_1.write_iops", 125956.087824);
    is_fig(&s, "fio.same_2.write_iops", 124914.171657);
    is_fig(&s, "fio.same_1.write_clat_p99_us", 4.192);
    is_fig(&s, "fio.same_2.write_clat_p99_us", 4.256);
    is_fig(&s, "fio.same_2.write_clat_p999_us", 199.68);
    is_fig(&s, "fio.write_iops", 125956.087824 + 124914.171657);
    is_fig(&s, "fio.write_bw_kib_s", 503824 + 499656);

    is_num(parse("fio", FX "fio-3.33-bad-option.txt", NULL, &s), -1, 0, "fio's error for a bad option");
    is_str(err.msg, "fio: no JSON of fio --output-format=json in the output: no line starts with '{' "
           "(the output says: fio: failed parsing rw=bogus)", "  names what was missing and quotes fio");
    is_num(s.n, 0, 0, "  and reads nothing");
    is_num(parse("fio", FX "fio-3.33-job-error.json", NULL, &s), -1, 0, "fio's JSON of a job that failed");
    is_str(err.msg, "fio: no fio.ro figures: job 0 (ro) ended with error 1, EPERM (fio says why on its standard "
           "error)", "  names the job and its error");
    is_num(parse("fio", FX "fio-3.33-truncated.json", NULL, &s), -1, 0, "fio's JSON cut short");
    is_str(err.msg, "fio: the JSON of fio --output-format=json does not parse: string or '}' expected near end of "
           "file (line 164 of the output, column 6)", "  says where");
    figure_set_free(&s);
}

/* fio's JSON as a crafted output could have it. */
#define FIO_JOB(name, read) "{\"jobname\":\"" name "\",\"error\":0,\"read\":" read ",\"write\":{\"total_ios\":0}}"
#define FIO_READ(pcts) "{\"total_ios\":1,\"iops\":5,\"bw\":4,\"clat_ns\":{\"percentile\":{" pcts "}}}"
#define FIO_PCTS "\"50.000000\":1000,\"99.000000\":2000,\"99.900000\":3000"

static void fio_crafted(void)
{
    struct figure_set s = { 0 };
    is_num(parse_str("fio", "fio: a warning on stderr first\n{\"jobs\":[" FIO_JOB("a", FIO_READ(FIO_PCTS)) "]}\nmore\n",
                     &s), 0, 0, "fio: lines before and after the JSON are passed over");
    is_num(s.n, 7, 0, "  5 figures and 2 sums");
    is_fig(&s, "fio.a.read_clat_p999_us", 3);
    is_num(parse_str("fio", "{\"jobs\":[" FIO_JOB("a", FIO_READ("\"50.000000\":1000,\"99.000000\":2000")) "]}", &s),
           -1, 0, "fio: a percentile missing (percentile_list changed)");
    is_str(err.msg, "fio: no fio.a.read_clat_p999_us: the job's JSON has no number at "
           "read.clat_ns.percentile.\"99.900000\"", "  names the figure and the key");
    is_num(s.n, 0, 0, "  and keeps none of the job's other figures");
    is_num(parse_str("fio", "{\"jobs\":[" FIO_JOB("a", "{\"total_ios\":1,\"iops\":\"5\",\"bw\":4}") "]}", &s), -1, 0,
           "fio: IOPS as a string");
    is_str(err.msg, "fio: no fio.a.read_iops: the job's JSON has no number at read.iops", "  is no number");
    is_num(parse_str("fio", "{\"jobs\":[" FIO_JOB("a", FIO_READ(FIO_PCTS)) "],\"jobs\":[]}", &s), -1, 0,
           "fio: a key twice");
    like_err("duplicate object key");
    is_num(parse_str("fio", "{\"jobs\":[" FIO_JOB("--", FIO_READ(FIO_PCTS)) "]}", &s), -1, 0,
           "fio: a job named with no letter or digit");
    is_str(err.msg, "fio: job 0's name has no letter or digit to name its figures", "  is refused");
    is_num(parse_str("fio", "{\"jobs\":[" FIO_JOB("A-b", FIO_READ(FIO_PCTS)) "," FIO_JOB("a b", FIO_READ(FIO_PCTS))
                     "," FIO_JOB("a_b_1", FIO_READ(FIO_PCTS)) "]}", &s), -1, 0,
           "fio: names that read alike, and one that reads like their place");
    is_str(err.msg, "fio: fio.a_b_1.read_iops is in the output twice", "  is refused, not overwritten");
    is_num(parse_str("fio", "{\"jobs\":[" FIO_JOB("Job-With-A-Very-Long-Name-That-Goes-On-And-On-For-Ever",
                                                  FIO_READ(FIO_PCTS)) "]}", &s), 0, 0, "fio: a long job name");
    /* 40 characters, cut where the 40th falls. */
    is_fig(&s, "fio.job_with_a_very_long_name_that_goes_on_a.read_iops", 5);
    is_num(parse_str("fio", "{\"jobs\":[{\"jobname\":\"a\",\"error\":0,\"read\":{\"total_ios\":0},"
                            "\"write\":{\"total_ios\":0}}]}", &s), -1, 0, "fio: no job did I/O");
    is_str(err.msg, "fio: no fio.read_iops or fio.write_iops: no job read or wrote (total_ios 0)", "  says so");
    is_num(parse_str("fio", "{\"jobs\":[]}", &s), -1, 0, "fio: no jobs");
    is_num(parse_str("fio", "[1]\n{\"jobs\":5}", &s), -1, 0, "fio: jobs not an array");
    is_str(err.msg, "fio: no jobs in fio's JSON (no \"jobs\" array, or an empty one)", "  says so");
    figure_set_free(&s);
}

static void stress_ng(void)
{
    struct figure_set s = { 0 };
    is_num(parse("stress-ng", FX "stress-ng-0.15.06.yaml", NULL, &s), 0, 0, "stress-ng: its YAML read");
    is_num(s.n, 6, 0, "  6 figures: two rates of three stressors");
    is_fig(&s, "stress_ng.cpu.bogo_ops_per_s", 573.729969);
    is_fig(&s, "stress_ng.cpu.bogo_ops_per_cpu_s", 1561.993136);
    is_fig(&s, "stress_ng.vm.bogo_ops_per_s", 18040.390773);
    is_fig(&s, "stress_ng.vm.bogo_ops_per_cpu_s", 44226.245095);
    is_fig(&s, "stress_ng.hdd.bogo_ops_per_s", 10514.592733);
    is_fig(&s, "stress_ng.hdd.bogo_ops_per_cpu_s", 30521.6207);
    unit_dir(&s, "stress_ng.vm.bogo_ops_per_s", "bogo-ops/s", PM_HIGHER);

    is_num(parse("stress-ng", FX "stress-ng-0.15.06-truncated.yaml", NULL, &s), -1, 0, "stress-ng: its YAML cut short");
    is_str(err.msg, "stress-ng: no stress_ng.vm.bogo_ops_per_s: the stressor vm's entry has no "
           "bogo-ops-per-second-real-time", "  names the stressor and the key");
    is_num(s.n, 0, 0, "  and keeps not even cpu's");
    is_num(parse("stress-ng", FX "stress-ng-0.15.06-bad-option.txt", NULL, &s), -1, 0, "stress-ng's bad option");
    is_str(err.msg, "stress-ng: no stress_ng.<stressor>.bogo_ops_per_s: no 'metrics:' section (stress-ng writes it to "
           "the file of --yaml FILE when run with --metrics) (the output says: stress-ng: unrecognized option "
           "'--nosuch')", "  says what is missing and quotes stress-ng");

    static const char head[] = "---\nmetrics:\n    - stressor: af-alg\n      bogo-ops-per-second-usr-sys-time: 2.5\n";
    char text[512];
    snprintf(text, sizeof text, "%s      bogo-ops-per-second-real-time: 1.25\n\n...\n", head);
    is_num(parse_str("stress-ng", text, &s), 0, 0, "stress-ng: a stressor named with a '-'");
    is_fig(&s, "stress_ng.af_alg.bogo_ops_per_s", 1.25);
    snprintf(text, sizeof text, "%s      bogo-ops-per-second-real-time: 1.25\n", head);
    is_num(parse_str("stress-ng", text, &s), -1, 0, "stress-ng: no closing '...'");
    is_str(err.msg, "stress-ng: the YAML ends without stress-ng's closing '...': it was cut short", "  is cut short");
    snprintf(text, sizeof text, "%s      bogo-ops-per-second-real-time: inf\n...\n", head);
    is_num(parse_str("stress-ng", text, &s), -1, 0, "stress-ng: a rate of inf");
    is_str(err.msg, "stress-ng: line 5: the stressor af_alg's bogo-ops-per-second-real-time is not a number",
           "  is no number");
    snprintf(text, sizeof text, "%s      bogo-ops-per-second-real-time: 1\n      {flow: style}\n...\n", head);
    is_num(parse_str("stress-ng", text, &s), -1, 0, "stress-ng: a line of another layout");
    like_err("line 6 of the metrics section is not stress-ng's layout");
    snprintf(text, sizeof text, "%s      bogo-ops-per-second-real-time: 1\n    - stressor: af_alg\n", head);
    is_num(parse_str("stress-ng", text, &s), -1, 0, "stress-ng: a stressor twice (by name)");
    is_str(err.msg, "stress-ng: no stress_ng.af_alg.bogo_ops_per_s: the stressor af_alg's entry has no "
           "bogo-ops-per-second-real-time", "  the second, empty, lacks its rates");
    snprintf(text, sizeof text, "%s      bogo-ops-per-second-real-time: 1\n%s      bogo-ops-per-second-real-time: 2\n...\n",
             head, head + sizeof "---\nmetrics:\n" - 1);
    is_num(parse_str("stress-ng", text, &s), -1, 0, "stress-ng: a stressor twice, both whole");
    like_err("stress_ng.af_alg.bogo_ops_per_s is in the output twice");
    is_num(parse_str("stress-ng", "---\nmetrics:\n...\n", &s), -1, 0, "stress-ng: no stressor");
    is_str(err.msg, "stress-ng: no stress_ng.<stressor>.bogo_ops_per_s: the metrics section names no stressor",
           "  says so");
    figure_set_free(&s);
}

static void redis_benchmark(void)
{
    struct figure_set s = { 0 };
    is_num(parse("redis-benchmark", FX "redis-benchmark-7.0.15.csv", NULL, &s), 0, 0, "redis-benchmark: its CSV read");
    is_num(s.n, 42, 0, "  42 figures: 7 columns of 6 tests");
    is_fig(&s, "redis_benchmark.set.requests_per_s", 31446.54);
    is_fig(&s, "redis_benchmark.set.latency_avg_ms", 0.196);
    is_fig(&s, "redis_benchmark.set.latency_min_ms", 0.064);
    is_fig(&s, "redis_benchmark.set.latency_p50_ms", 0.175);
    is_fig(&s, "redis_benchmark.set.latency_p95_ms", 0.335);
    is_fig(&s, "redis_benchmark.set.latency_p99_ms", 0.719);
    is_fig(&s, "redis_benchmark.set.latency_max_ms", 2.071);
    is_fig(&s, "redis_benchmark.get.requests_per_s", 33783.79);
    is_fig(&s, "redis_benchmark.lpush_needed_to_benchmark_lrange.latency_max_ms", 3.911);
    is_fig(&s, "redis_benchmark.lrange_100_first_100_elements.requests_per_s", 27932.96);
    is_fig(&s, "redis_benchmark.lrange_100_first_100_elements.latency_p99_ms", 0.431);
    is_fig(&s, "redis_benchmark.mset_10_keys.latency_min_ms", 0.032);
    unit_dir(&s, "redis_benchmark.get.requests_per_s", "req/s", PM_HIGHER);
    unit_dir(&s, "redis_benchmark.get.latency_p99_ms", "ms", PM_LOWER);

    is_num(parse("redis-benchmark", FX "redis-benchmark-7.0.15-no-server.txt", NULL, &s), -1, 0,
           "redis-benchmark with no server");
    is_str(err.msg, "redis-benchmark: no redis_benchmark.<test>.requests_per_s: no CSV header (\"test\",\"rps\",...: "
           "redis-benchmark --csv writes it) (the output says: Could not connect to Redis at 127.0.0.1:34149: "
           "Connection refused)", "  quotes redis-benchmark");

    static const char hdr[] = "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
                              "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n";
    char text[1024];
    snprintf(text, sizeof text, "%s\"A \"\"quoted\"\", test\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\"\n", hdr);
    is_num(parse_str("redis-benchmark", text, &s), 0, 0, "redis-benchmark: quotes and a comma in a test's name");
    is_fig(&s, "redis_benchmark.a_quoted_test.latency_max_ms", 7);
    snprintf(text, sizeof text, "%s\"SET\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\"\n\"set\",\"1\",\"2\",\"3\",\"4\","
             "\"5\",\"6\",\"7\"\n", hdr);
    is_num(parse_str("redis-benchmark", text, &s), -1, 0, "redis-benchmark: a test twice");
    is_str(err.msg, "redis-benchmark: redis_benchmark.set.requests_per_s is in the output twice", "  is refused");
    snprintf(text, sizeof text, "%s\"SET\",\"nan\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\"\n", hdr);
    is_num(parse_str("redis-benchmark", text, &s), -1, 0, "redis-benchmark: rps nan");
    is_str(err.msg, "redis-benchmark: line 2: the test set's rps is not a number", "  is no number");
    snprintf(text, sizeof text, "%s\"SET\",\"0x10\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\"\n", hdr);
    is_num(parse_str("redis-benchmark", text, &s), -1, 0, "redis-benchmark: rps in hex");
    is_str(err.msg, "redis-benchmark: line 2: the test set's rps is not a number", "  is no number");
    snprintf(text, sizeof text, "%s\"SET\",\"-1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\"\n", hdr);
    is_num(parse_str("redis-benchmark", text, &s), -1, 0, "redis-benchmark: a negative rps");
    like_err("redis_benchmark.set.requests_per_s is negative");
    snprintf(text, sizeof text, "%s\"SET\",\"1\",\"2\"\n", hdr);
    is_num(parse_str("redis-benchmark", text, &s), -1, 0, "redis-benchmark: a short row");
    is_str(err.msg, "redis-benchmark: line 2 has 3 fields, the header 8", "  is refused");
    snprintf(text, sizeof text, "%s\"SET,\"1\"\n", hdr);
    is_num(parse_str("redis-benchmark", text, &s), -1, 0, "redis-benchmark: a quote left open");
    is_str(err.msg, "redis-benchmark: line 2 is not a row of redis-benchmark's CSV", "  is refused");
    is_num(parse_str("redis-benchmark", "\"test\",\"rps\"\n\"SET\",\"1\"\n", &s), -1, 0,
           "redis-benchmark: a header without the latency columns (redis before 6)");
    is_str(err.msg, "redis-benchmark: no redis_benchmark.<test>.latency_avg_ms: the CSV header has no "
           "\"avg_latency_ms\" column", "  names the first missing column");
    is_num(parse_str("redis-benchmark", hdr, &s), -1, 0, "redis-benchmark: a header and no row");
    like_err("the CSV has a header and no test's row");
    figure_set_free(&s);
}

static void pgbench(void)
{
    struct figure_set s = { 0 };
    is_num(parse("pgbench", FX "pgbench-15.18.txt", FX "pgbench-15.18-log.txt", &s), 0, 0,
           "pgbench: its output (-P) and its per-transaction log (-l) read");
    is_num(s.n, 8, 0, "  8 figures");
    is_fig(&s, "pgbench.tps", 1857.570762);
    is_fig(&s, "pgbench.transactions", 400);
    is_fig(&s, "pgbench.latency_avg_ms", 1.002);
    is_fig(&s, "pgbench.latency_stddev_ms", 1.019);
    is_fig(&s, "pgbench.failed_transactions", 0);
    /* The log's 400 latencies sorted: the median is the 200th and 201st,
     * both 918 us; the 99th percentile is at rank 395.01 of 0..399, between
     * the 396th (5457) and 397th (5987); the 99.9th at rank 398.601,
     * between 10743 and 14232 (linear between closest ranks). */
    is_fig(&s, "pgbench.latency_p50_us", 918);
    is_num(fig(&s, "pgbench.latency_p99_us"), 5457 + 0.01 * (5987 - 5457), 1e-9, "pgbench.latency_p99_us = 5462.3");
    is_num(fig(&s, "pgbench.latency_p999_us"), 10743 + 0.601 * (14232 - 10743), 1e-6,
           "pgbench.latency_p999_us = 12839.889");
    unit_dir(&s, "pgbench.tps", "tx/s", PM_HIGHER);
    unit_dir(&s, "pgbench.latency_p99_us", "us", PM_LOWER);
    is_num(parse("pgbench", FX "pgbench-15.18.txt", NULL, &s), 0, 0, "pgbench: its output without the log");
    is_num(s.n, 5, 0, "  5 figures: no percentiles");
    is_num(parse("pgbench", FX "pgbench-15.18-no-progress.txt", NULL, &s), 0, 0, "pgbench: a run without -P");
    is_num(s.n, 4, 0, "  4 figures: pgbench printed no stddev");
    is_fig(&s, "pgbench.tps", 1812.645012);
    is_fig(&s, "pgbench.transactions", 50);
    is_fig(&s, "pgbench.latency_avg_ms", 0.552);
    ok(!figure_set_find(&s, "pgbench.latency_stddev_ms"), "  no stddev figure (not a 0)");
    /* Debian 12's pgbench 15.18, serializable (PGOPTIONS), 4 clients x
     * 200, --max-tries=1 -l: serialization failures are failed
     * transactions, not retried; the run goes on and exits 0. */
    is_num(parse("pgbench", FX "pgbench-15.18-failures.txt", FX "pgbench-15.18-failures-log.txt", &s), 0, 0,
           "pgbench: a run whose transactions failed, with its log");
    is_num(s.n, 7, 0, "  7 figures: no stddev without -P");
    is_fig(&s, "pgbench.transactions", 313);
    is_fig(&s, "pgbench.failed_transactions", 487);
    is_fig(&s, "pgbench.tps", 1132.482343);
    is_fig(&s, "pgbench.latency_avg_ms", 1.382);
    /* The log's 800 lines: 487 "failed" (no latency) and 313 latencies,
     * sorted: the median the 157th (rank 156), 695 us; the 99th
     * percentile at rank 308.88, between 4464 and 4582; the 99.9th at
     * rank 311.688, between 8092 and 16342. */
    is_fig(&s, "pgbench.latency_p50_us", 695);
    is_num(fig(&s, "pgbench.latency_p99_us"), 4464 + 0.88 * (4582 - 4464), 1e-6, "pgbench.latency_p99_us = 4567.84");
    is_num(fig(&s, "pgbench.latency_p999_us"), 8092 + 0.688 * (16342 - 8092), 1e-6, "pgbench.latency_p999_us = 13768");
    /* pgbench -T 2 -P 1 -l, 2>&1: a progress line among the summary's. */
    is_num(parse("pgbench", FX "pgbench-15.18-timed.txt", NULL, &s), 0, 0, "pgbench -T 2 -P 1, its stderr too");
    is_num(s.n, 5, 0, "  5 figures");
    is_fig(&s, "pgbench.transactions", 6359);
    is_fig(&s, "pgbench.tps", 3226.980173);
    is_fig(&s, "pgbench.latency_stddev_ms", 0.237);
    is_fig(&s, "pgbench.failed_transactions", 0);
    /* A client's error that is no serialization failure aborts it; the
     * summary printed above counts what ran before, and pgbench exits 2. */
    is_num(parse("pgbench", FX "pgbench-15.18-aborted.txt", NULL, &s), -1, 0, "pgbench whose client aborted");
    is_str(err.msg, "pgbench: line 13: pgbench says 'Run was aborted; the above results are incomplete.', no figure "
           "is whole (the output says: pgbench: error: client 0 script 0 aborted in command 0 query 0: ERROR:  "
           "division by zero)", "  is no figure, and its error is quoted");
    is_num(s.n, 0, 0, "  nothing is kept");
    is_num(parse("pgbench", FX "pgbench-15.18-no-server.txt", NULL, &s), -1, 0, "pgbench with no server");
    is_str(err.msg, "pgbench: no pgbench.tps: no line 'tps = N (without initial connection time)' (the output says: "
           "pgbench: error: connection to server on socket \"/tmp/i44pg/.s.PGSQL.1\" failed: No such file or "
           "directory)", "  quotes pgbench's error");

    size_t len;
    char *text = slurp(FX "pgbench-15.18.txt", &len);
    static const struct { const char *log, *why, *err; } logs[] = {
        { "", "an empty log", "pgbench: no pgbench.latency_p50_us: the log holds no transaction that completed" },
        { "0 1 skipped 0 1796589054 450126\n", "a log of a skipped transaction only",
          "pgbench: no pgbench.latency_p50_us: the log holds no transaction that completed" },
        { "1796589054 400 400780 802043868 166 14232 0\n", "an aggregated log (--aggregate-interval)",
          "pgbench: line 1 of the log is not pgbench's per-transaction log (-l, without --aggregate-interval)" },
        { "0 1 -5 0 1796589054 450126\n", "a negative latency",
          "pgbench: line 1 of the log is not pgbench's per-transaction log (-l, without --aggregate-interval)" },
        { "0 1 99999999999999999999 0 1796589054 450126\n", "a latency of 20 digits",
          "pgbench: line 1 of the log is not pgbench's per-transaction log (-l, without --aggregate-interval)" },
    };
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        figure_set_free(&s);
        is_num(figures_parse_log("pgbench", text, len, logs[i].log, strlen(logs[i].log), &s, &err), -1, 0,
               "pgbench: %s", logs[i].why);
        is_str(err.msg, logs[i].err, "  is refused");
        is_num(s.n, 0, 0, "  and nothing is kept, not even the summary's figures");
    }
    char *longlog = malloc(2100);
    memset(longlog, ' ', 2099);
    memcpy(longlog, "0 1 250 0 1796589054 450126", 27);
    longlog[2099] = '\0';
    figure_set_free(&s);
    is_num(figures_parse_log("pgbench", text, len, longlog, 2099, &s, &err), -1, 0, "pgbench: a log line of 2099 bytes");
    like_err("line 1 of the log is not pgbench's per-transaction log");
    free(longlog);
    static const char failed[] = "0 1 250 0 1796589054 450126\n0 2 failed 0 1796589054 450127\n";
    is_num(figures_parse_log("pgbench", text, len, failed, strlen(failed), &s, &err), 0, 0,
           "pgbench: a failed transaction has no latency");
    is_fig(&s, "pgbench.latency_p999_us", 250);
    figure_set_free(&s);
    is_num(figures_parse_log("fio", text, len, "x", 1, &s, &err), -1, 0, "a log for a parser that takes none");
    is_str(err.msg, "fio: takes no log, only the tool's output", "  is refused");
    /* With -T there is no "/M": the count stands alone; anything else
     * after it is no count. */
    static const char timed[] = "number of transactions actually processed: 1234\nnumber of failed transactions: 0 "
                                "(0.000%)\nlatency average = 1 ms\ntps = 2.5 (without initial connection time)\n";
    is_num(parse_str("pgbench", timed, &s), 0, 0, "pgbench -T: its summary read");
    is_fig(&s, "pgbench.transactions", 1234);
    static const char odd[] = "number of transactions actually processed: 1234x\nlatency average = 1 ms\n"
                              "tps = 2.5 (without initial connection time)\n";
    is_num(parse_str("pgbench", odd, &s), -1, 0, "pgbench: a count with more after it");
    is_str(err.msg, "pgbench: no pgbench.transactions: no line 'number of transactions actually processed: N[/M]' "
           "(the output says: number of transactions actually processed: 1234x)", "  is no count");
    static const char *const not_counts[] = { "1000/x", "1000/", "1000/10 ", "1000 /1000", "1000/1000/1000" };
    for (size_t i = 0; i < sizeof not_counts / sizeof not_counts[0]; i++) {
        char t[256];
        snprintf(t, sizeof t, "number of transactions actually processed: %s\nnumber of failed transactions: 0 "
                 "(0.000%%)\nlatency average = 1 ms\ntps = 2.5 (without initial connection time)\n", not_counts[i]);
        int r = parse_str("pgbench", t, &s);
        ok(r < 0 && strstr(err.msg, "pgbench: no pgbench.transactions: "), "pgbench: '%s' is no count (%s)",
           not_counts[i], r < 0 ? err.msg : "taken");
    }
    static const char planned[] = "number of transactions actually processed: 1000/1000\nnumber of failed "
                                  "transactions: 0 (0.000%)\nlatency average = 1 ms\ntps = 2.5 (without initial "
                                  "connection time)\n";
    is_num(parse_str("pgbench", planned, &s), 0, 0, "pgbench -t: 'N/M' read");
    is_fig(&s, "pgbench.transactions", 1000);
    static const char twice[] = "tps = 1.5 (without initial connection time)\nlatency average = 1 ms\n"
                                "tps = 2.5 (without initial connection time)\n";
    is_num(parse_str("pgbench", twice, &s), -1, 0, "pgbench: two tps lines");
    is_str(err.msg, "pgbench: line 3: a second 'tps = ' line", "  is refused");
    free(text);
    figure_set_free(&s);
}

static void sysbench(void)
{
    struct figure_set s = { 0 };
    is_num(parse("sysbench", FX "sysbench-1.0.20-cpu.txt", NULL, &s), 0, 0, "sysbench cpu");
    is_num(s.n, 5, 0, "  5 figures");
    is_fig(&s, "sysbench.events_per_s", 3750.09);
    is_fig(&s, "sysbench.latency_min_ms", 0.23);
    is_fig(&s, "sysbench.latency_avg_ms", 0.26);
    is_fig(&s, "sysbench.latency_max_ms", 4.93);
    is_fig(&s, "sysbench.latency_p95_ms", 0.35);
    unit_dir(&s, "sysbench.events_per_s", "events/s", PM_HIGHER);
    is_num(parse("sysbench", FX "sysbench-1.0.20-memory.txt", NULL, &s), 0, 0, "sysbench memory");
    is_num(s.n, 6, 0, "  6 figures: and MiB/s");
    is_fig(&s, "sysbench.events_per_s", 4703795.75);
    is_fig(&s, "sysbench.mib_per_s", 4593.55);
    is_fig(&s, "sysbench.latency_max_ms", 1.72);
    is_fig(&s, "sysbench.latency_avg_ms", 0.00);
    is_num(parse("sysbench", FX "sysbench-1.0.20-bad-option.txt", NULL, &s), -1, 0, "sysbench's bad option");
    is_str(err.msg, "sysbench: no sysbench.events_per_s: no 'events per second:' (cpu) or 'Total operations: N "
           "(X per second)' (memory) line; sysbench's other tests print no rate (the output says: invalid option: "
           "--nosuch=1)", "  quotes sysbench");
    is_num(parse_str("sysbench", "events per second: 5\nLatency (ms):\n  min: 1\n  avg: 2\n  99th percentile: 4\n",
                     &s), -1, 0, "sysbench: no max");
    is_str(err.msg, "sysbench: no sysbench.latency_max_ms: no 'max:' in a 'Latency (ms):' block (the output says: "
           "events per second: 5)", "  names it");
    is_num(parse_str("sysbench", "events per second: 5\nmin: 1\nLatency (ms):\n  min: 1\n  avg: 2\n  max: 3\n"
                                 "  99th percentile: 4\n", &s), 0, 0, "sysbench: --percentile=99, a min: elsewhere");
    is_fig(&s, "sysbench.latency_p99_ms", 4);
    is_num(s.n, 5, 0, "  5 figures");
    is_num(parse_str("sysbench", "events per second: 5\nTotal operations: 1 (7 per second)\n", &s), -1, 0,
           "sysbench: two rates");
    is_str(err.msg, "sysbench: line 2: a second line for sysbench.events_per_s", "  is refused");
    figure_set_free(&s);
}

static void hackbench_memcaslap(void)
{
    struct figure_set s = { 0 };
    is_num(parse("hackbench", FX "hackbench-2.4.txt", NULL, &s), 0, 0, "hackbench");
    is_num(s.n, 1, 0, "  1 figure");
    is_fig(&s, "hackbench.time_s", 1.683);
    unit_dir(&s, "hackbench.time_s", "s", PM_LOWER);
    is_num(parse("hackbench", FX "hackbench-2.4-bad-option.txt", NULL, &s), -1, 0, "hackbench's bad option");
    is_str(err.msg, "hackbench: no hackbench.time_s: no 'Time: S' line (the output says: hackbench: unrecognized "
           "option '--nosuch')", "  quotes hackbench");
    is_num(parse_str("hackbench", "Time: 1.5\nTime: 2\n", &s), -1, 0, "hackbench: two times");
    is_str(err.msg, "hackbench: line 2: a second 'Time:' line", "  is refused");
    is_num(parse_str("hackbench", "Time: 1.5s\n", &s), -1, 0, "hackbench: a time with a unit");
    is_str(err.msg, "hackbench: line 1: the time is not a number", "  is no number");

    is_num(parse("memcaslap", FX "memcaslap-1.1.4.txt", NULL, &s), 0, 0, "memcaslap");
    is_num(s.n, 1, 0, "  1 figure: without -S it prints no latency");
    is_fig(&s, "memcaslap.ops_per_s", 31348);
    is_num(parse("memcaslap", FX "memcaslap-1.1.4-stats.txt", NULL, &s), 0, 0, "memcaslap -S");
    is_num(s.n, 5, 0, "  5 figures");
    is_fig(&s, "memcaslap.ops_per_s", 47190);
    is_fig(&s, "memcaslap.latency_min_us", 22);
    is_fig(&s, "memcaslap.latency_avg_us", 169);
    is_fig(&s, "memcaslap.latency_max_us", 9521);
    is_fig(&s, "memcaslap.latency_stddev_us", 194.67);
    unit_dir(&s, "memcaslap.latency_avg_us", "us", PM_LOWER);
    is_num(parse("memcaslap", FX "memcaslap-1.1.4-no-server.txt", NULL, &s), -1, 0, "memcaslap with no server");
    is_str(err.msg, "memcaslap: no memcaslap.ops_per_s: no last line 'Run time: Ns Ops: N TPS: N Net_rate: ...' "
           "(memcaslap prints it when the run completes) (the output says: servers: 127.0.0.1:52549)",
           "  names the line it lacks");
    is_num(parse_str("memcaslap", "Total Statistics (9 events)\n   Min:  1\n   Max:  3\n   Avg:  2\n\n"
                                  "Run time: 2.0s Ops: 9 TPS: 4 Net_rate: 1.0M/s\n", &s), -1, 0,
           "memcaslap: a Total Statistics block without Std");
    is_str(err.msg, "memcaslap: no memcaslap.latency_stddev_us: the Total Statistics block has no Std: line",
           "  names it");
    figure_set_free(&s);
}

/* What any parser gets before it reads: the text's size and bytes, and
 * what happens to a set that already holds figures. */
static void hostile(void)
{
    struct figure_set s = { 0 };
    static const char nul[] = "Time: 1.5\0Time: 2\n";
    is_num(figures_parse("hackbench", nul, sizeof nul - 1, &s, &err), -1, 0, "a NUL byte in the output");
    is_str(err.msg, "hackbench: the output holds a NUL byte at offset 9: it is not a tool's text", "  is refused");
    is_num(figures_parse("hackbench", nul, (size_t)FIGURES_MAX_TEXT + 1, &s, &err), -1, 0, "an output over 64 MiB");
    is_str(err.msg, "hackbench: the output is 67108865 bytes, more than the 64 MiB read", "  is refused unread");
    is_num(figures_parse("hackbench", NULL, 0, &s, &err), -1, 0, "no output at all");
    is_str(err.msg, "hackbench: no hackbench.time_s: no 'Time: S' line (the output says: (no output))", "  says so");
    is_num(parse_str("hackbench", "\033[2JTime: 1\nfatal: \033[31mred\033[0m\n", &s), -1, 0,
           "escape bytes in an error");
    is_str(err.msg, "hackbench: no hackbench.time_s: no 'Time: S' line (the output says: fatal: ?[31mred?[0m)",
           "  are not quoted to the terminal");

    static const char *const numbers[] = { "1e999", "-inf", "nan", "0x1p3", " ", "1.", ".5", "+1", "1e" };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "Time: %s\n", numbers[i]);
        is_num(parse_str("hackbench", text, &s), -1, 0, "a time of '%s' is no number", numbers[i]);
        is_str(err.msg, "hackbench: line 1: the time is not a number", "  says so");
    }
    is_num(parse_str("hackbench", "Time: 1.5e2\n", &s), 0, 0, "a time of 1.5e2 is one");
    is_fig(&s, "hackbench.time_s", 150);

    /* A long line is no figure line: "Time: 1" cut from a long line is not read. */
    char *long_line = malloc(5000);
    memset(long_line, ' ', 4999);
    memcpy(long_line, "Time: 1", 7);
    long_line[4999] = '\0';
    is_num(parse_str("hackbench", long_line, &s), -1, 0, "a time on a line of 5000 characters is not read");
    like_err("no 'Time: S' line");
    free(long_line);

    /* A set that holds figures keeps them, and only them, when a parse fails. */
    is_num(parse_str("hackbench", "Time: 2\n", &s), 0, 0, "a set with a figure");
    is_num(figures_parse("pgbench", "tps = 1 (without initial connection time)\n", 42, &s, &err), -1, 0,
           "  a parse that fails on it");
    ok(s.n == 1 && strcmp(s.v[0].name, "hackbench.time_s") == 0, "  leaves it as it was");
    is_num(figures_parse("hackbench", "Time: 3\n", 8, &s, &err), -1, 0, "  a parse that reads a figure it holds");
    is_str(err.msg, "hackbench: hackbench.time_s is in the output twice", "  is refused");
    is_fig(&s, "hackbench.time_s", 2);
    figure_set_free(&s);
}

static void regex(void)
{
    size_t len;
    char *text = slurp(FX "hackbench-2.4.txt", &len);
    double v = 0;
    is_num(figure_regex("hb.time", "^Time: ([0-9.]+)$", text, len, &v, &err), 0, 0, "--figure hb.time=REGEX");
    is_num(v, 1.683, 0, "  reads 1.683");
    is_num(figure_regex("hb.groups", "with ([0-9]+) groups", text, len, &v, &err), 0, 0, "  and the first match");
    is_num(v, 4, 0, "  of the first line that has it: 4");
    is_num(figure_regex("x", "Time: ([0-9.]+", text, len, &v, &err), -1, 0, "a pattern that does not compile");
    is_str(err.msg, "--figure x: the pattern does not compile: Unmatched ( or \\(", "  one line naming the option");
    is_num(figure_regex("x", "Time: [0-9.]+", text, len, &v, &err), -1, 0, "a pattern with no group");
    is_str(err.msg, "--figure x: the pattern has no (group) around the number", "  is refused");
    is_num(figure_regex("x", "^Tyme: ([0-9.]+)", text, len, &v, &err), -1, 0, "a pattern that matches nothing");
    is_str(err.msg, "--figure x: no line of the output matches the pattern", "  says so");
    is_num(figure_regex("x", "^(Running) in", text, len, &v, &err), -1, 0, "a group that is no number");
    is_str(err.msg, "--figure x: the group matched 'Running', not a number", "  quotes it");
    is_num(figure_regex("x", "Time: (x)?([0-9.]+)", text, len, &v, &err), -1, 0, "a first group that did not match");
    is_str(err.msg, "--figure x: the pattern matched but its first group did not", "  says so");
    is_num(figure_regex("x", "^Time: (.*)$", "Time: 1\0 2", 10, &v, &err), -1, 0, "a NUL in the output");
    is_str(err.msg, "--figure x: the output holds a NUL byte at offset 7: it is not a tool's text", "  is refused");
    free(text);
}

static void json_path(void)
{
    size_t len;
    char *text = slurp(FX "fio-3.33.json", &len);
    double v = 0;
    is_num(figure_json("r.iops", "jobs[0].read.iops", text, len, &v, &err), 0, 0, "--figure r.iops=json:PATH");
    is_num(v, 1910.044978, 0, "  reads 1910.044978");
    is_num(figure_json("w.p999", "jobs[1].write.clat_ns.percentile.\"99.900000\"", text, len, &v, &err), 0, 0,
           "a quoted key with dots");
    is_num(v, 98816, 0, "  reads 98816 (ns, as fio wrote it)");
    is_num(figure_json("t", "timestamp_ms", text, len, &v, &err), 0, 0, "an integer beyond 32 bits");
    is_num(v, 1796588377339.0, 0, "  reads 1796588377339");
    is_num(figure_json("x", "jobs[2].read.iops", text, len, &v, &err), -1, 0, "an index past the end");
    is_str(err.msg, "--figure x: step 2 of the path, [2], is not there (an array shorter than that)", "  says which");
    is_num(figure_json("x", "jobs[0].reed.iops", text, len, &v, &err), -1, 0, "a key that is not there");
    is_str(err.msg, "--figure x: step 3 of the path, the key \"reed\", is not there (an object)", "  says which");
    is_num(figure_json("x", "jobs[0].jobname", text, len, &v, &err), -1, 0, "a string");
    is_str(err.msg, "--figure x: the path leads to a string, not a number", "  is no number");
    is_num(figure_json("x", "jobs[0].read", text, len, &v, &err), -1, 0, "an object");
    is_num(figure_json("x", "jobs..read", text, len, &v, &err), -1, 0, "an empty key");
    is_str(err.msg, "--figure x: the path has an empty key (at offset 5)", "  is refused");
    is_num(figure_json("x", "jobs[x]", text, len, &v, &err), -1, 0, "an index that is not a number");
    is_str(err.msg, "--figure x: an index of the path is not [N] (N at most 9 digits)", "  is refused");
    is_num(figure_json("x", "[1]", "[1, 2.5]", 8, &v, &err), 0, 0, "a document that is an array");
    is_num(v, 2.5, 0, "  reads 2.5");
    is_num(figure_json("x", "a", "no JSON\n", 8, &v, &err), -1, 0, "an output without JSON");
    is_str(err.msg, "--figure x: no JSON document in the output: no line starts with '{' or '[' (the output says: "
           "no JSON)", "  says so");
    is_num(figure_json("x", "a", "{\"a\": \033[2J}", 11, &v, &err), -1, 0, "an escape byte in the JSON");
    ok(!strchr(err.msg, '\033'), "  is not quoted to the terminal (%s)", err.msg);
    is_num(figure_json("x", "a", "{\"a\": 1e999}", 12, &v, &err), -1, 0, "a number beyond a double");
    like_err("real number overflow");
    free(text);
}

static void specs(void)
{
    struct figure_spec sp;
    ok(figure_spec_parse("app.rps=^rps: ([0-9.]+)$", &sp, &err) == 0 && sp.kind == FIGURE_REGEX &&
       strcmp(sp.name, "app.rps") == 0 && strcmp(sp.expr, "^rps: ([0-9.]+)$") == 0, "NAME=REGEX");
    double v = 0;
    ok(figure_spec_eval(&sp, "x\nrps: 12.5\n", 11, &v, &err) == 0 && v == 12.5, "  reads 12.5");
    ok(figure_spec_parse("app.p99=json:a.b[0]", &sp, &err) == 0 && sp.kind == FIGURE_JSON &&
       strcmp(sp.expr, "a.b[0]") == 0, "NAME=json:PATH");
    static const char doc[] = "{\"a\": {\"b\": [7]}}";
    ok(figure_spec_eval(&sp, doc, strlen(doc), &v, &err) == 0 && v == 7, "  reads 7");
    ok(!sp.unit[0] && sp.dir == PM_NEITHER, "  no unit, no direction when none is given");
    ok(figure_spec_parse("app.lat:ms:lower=lat ([0-9]+)", &sp, &err) == 0 && strcmp(sp.name, "app.lat") == 0 &&
       strcmp(sp.unit, "ms") == 0 && sp.dir == PM_LOWER && strcmp(sp.expr, "lat ([0-9]+)") == 0,
       "NAME:UNIT:DIR=REGEX (%s)", err.msg);
    ok(figure_spec_parse("app.rate:req/s:higher=json:a", &sp, &err) == 0 && strcmp(sp.unit, "req/s") == 0 &&
       sp.dir == PM_HIGHER && sp.kind == FIGURE_JSON, "NAME:UNIT:DIR=json:PATH");
    ok(figure_spec_parse("app.n:count:none=x: ([0-9]+)=", &sp, &err) == 0 && sp.dir == PM_NEITHER &&
       strcmp(sp.expr, "x: ([0-9]+)=") == 0, "  ':' and '=' in the pattern are the pattern's");
    static const struct { const char *arg, *err; } bad[] = {
        { "rps", "--figure 'rps': not NAME:UNIT:DIR=REGEX or NAME:UNIT:DIR=json:PATH with NAME of [a-z0-9_.] (a "
                 "letter first, at most 95 characters)" },
        { "App.rps=x(1)", "--figure 'App.rps=x(1)': not NAME:UNIT:DIR=REGEX or NAME:UNIT:DIR=json:PATH with NAME of "
                          "[a-z0-9_.] (a letter first, at most 95 characters)" },
        { "a:ms=(1)", NULL },
        { "a:ms:up=(1)", "--figure a: 'up' is not a direction (accepted: higher, lower, none)" },
        { "a::lower=(1)", "--figure a: '' is not a unit (accepted: 1 to 15 printable characters, no blank, quote, "
                          "backslash, ':' or '=')" },
        { "a:0123456789abcdef:lower=(1)", "--figure a: '0123456789abcdef' is not a unit (accepted: 1 to 15 printable "
                                          "characters, no blank, quote, backslash, ':' or '=')" },
        { "a:m s:lower=(1)", NULL },
        { "a:\"ms\":lower=(1)", NULL },
        { "a:\033[2J:lower=(1)", "--figure a: '?[2J' is not a unit (accepted: 1 to 15 printable characters, no "
                                  "blank, quote, backslash, ':' or '=')" },
        { "a:ms:lower:x=(1)", NULL },
        { "a..b=(1)", NULL },
        { "a.=(1)", NULL },
        { "1a=(1)", NULL },
        { "=(1)", NULL },
        { "a=", "--figure a: the pattern is empty" },
        { "a=^(a*)*\\1(x)", "--figure a: the pattern has a back-reference (\\1)" },
        { "fio.read_iops=(1)", "--figure fio.read_iops: fio. names are the fio parser's" },
        { "a=(", "--figure a: the pattern does not compile: Unmatched ( or \\(" },
        { "a=json:", "--figure a: the path is empty" },
        { "a=json:x[", "--figure a: an index of the path is not [N] (N at most 9 digits)" },
        { "a=json:\"x", "--figure a: a quote in the path is never closed" },
        { "a=json:x]", "--figure a: the path has ']' where a '.' or the end was wanted (offset 1)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        is_num(figure_spec_parse(bad[i].arg, &sp, &err), -1, 0, "--figure '%s' is refused", bad[i].arg);
        if (bad[i].err)
            is_str(err.msg, bad[i].err, "  saying why");
    }
    char big[1200];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "a=(", 3);
    is_num(figure_spec_parse(big, &sp, &err), -1, 0, "a pattern of 1196 characters");
    is_str(err.msg, "--figure a: the pattern is longer than 1023 characters", "  is refused");
}

/* Each parser's headline rule picks from what its output gave. */
static void headlines(void)
{
    const struct figure_parser *fio_p = figures_parser("fio"), *redis = figures_parser("redis-benchmark");
    struct figure_set s = { 0 };
    static const struct metric_def w = METRIC("fio.write_iops", "ops/s", PM_HIGHER, ""),
                                   r = METRIC("fio.read_iops", "ops/s", PM_HIGHER, ""),
                                   t = METRIC("redis_benchmark.<test>.requests_per_s", "req/s", PM_HIGHER, "");
    ok(figure_set_add(&s, &w, NULL, 5, &err) == 0 && figures_headline(fio_p, &s) == &s.v[0], "fio: write_iops alone");
    ok(figure_set_add(&s, &r, NULL, 7, &err) == 0 && figures_headline(fio_p, &s) == &s.v[1],
       "fio: read_iops before write_iops");
    ok(!figures_headline(redis, &s), "redis-benchmark: none in fio's figures");
    figure_set_free(&s);
    ok(figure_set_add(&s, &t, "set", 1, &err) == 0 && figure_set_add(&s, &t, "get", 2, &err) == 0 &&
       strcmp(figures_headline(redis, &s)->name, "redis_benchmark.set.requests_per_s") == 0,
       "redis-benchmark: the first test's");
    figure_set_free(&s);
    for (size_t i = 0; figures_parsers_table[i]; i++) {
        const struct figure_parser *p = figures_parsers_table[i];
        const struct metric_def d = { .name = p->headline ? p->headline[0] : "" };
        char name[96] = "";
        ok(p->headline && p->headline[0] && figure_name(&d, "w1", name, sizeof name) == 0 &&
           figures_declares(p, name), "%s declares its headline %s (as %s)", p->name, d.name, name);
    }
    ok(figures_declares(fio_p, "fio.seq_1.read_clat_p99_us") && !figures_declares(fio_p, "fio.x.y"),
       "figures_declares: a job's figure, not another name");
}

/* Each parser's headline rule, exactly: a parser whose rule changed
 * would move every report's first column of its runs. */
static void headline_table(void)
{
    static const struct { const char *parser, *rule[3]; } want[] = {
        { "fio", { "fio.read_iops", "fio.write_iops", NULL } },
        { "stress-ng", { "stress_ng.<stressor>.bogo_ops_per_s", NULL } },
        { "redis-benchmark", { "redis_benchmark.<test>.requests_per_s", NULL } },
        { "pgbench", { "pgbench.tps", NULL } },
        { "sysbench", { "sysbench.events_per_s", NULL } },
        { "hackbench", { "hackbench.time_s", NULL } },
        { "memcaslap", { "memcaslap.ops_per_s", NULL } },
    };
    size_t n = 0;
    while (figures_parsers_table[n])
        n++;
    is_num(n, sizeof want / sizeof want[0], 0, "seven parsers, each in the table");
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct figure_parser *p = figures_parser(want[i].parser);
        size_t k = 0;
        bool same = p && p->headline;
        for (; same && want[i].rule[k]; k++)
            same = p->headline[k] && strcmp(p->headline[k], want[i].rule[k]) == 0;
        ok(same && !p->headline[k], "%s's headline is %s%s%s", want[i].parser, want[i].rule[0],
           want[i].rule[1] ? ", else " : "", want[i].rule[1] ? want[i].rule[1] : "");
    }
    /* stress-ng: the first stressor's rate, as the output gave them. */
    struct figure_set s = { 0 };
    const struct figure_parser *sng = figures_parser("stress-ng");
    ok(parse("stress-ng", FX "stress-ng-0.15.06.yaml", NULL, &s) == 0 && figures_headline(sng, &s) &&
       strcmp(figures_headline(sng, &s)->name, "stress_ng.cpu.bogo_ops_per_s") == 0,
       "stress-ng of cpu, vm and hdd: cpu's bogo_ops_per_s");
    figure_set_free(&s);
    static const char two[] = "---\nmetrics:\n"
                              "    - stressor: vm\n      bogo-ops-per-second-real-time: 3.5\n"
                              "      bogo-ops-per-second-usr-sys-time: 4.5\n"
                              "    - stressor: cpu\n      bogo-ops-per-second-real-time: 1.5\n"
                              "      bogo-ops-per-second-usr-sys-time: 2.5\n...\n";
    ok(parse_str("stress-ng", two, &s) == 0 && figures_headline(sng, &s) &&
       strcmp(figures_headline(sng, &s)->name, "stress_ng.vm.bogo_ops_per_s") == 0 &&
       figures_headline(sng, &s)->value == 3.5, "stress-ng of vm then cpu: vm's, the first (%s)", err.msg);
    figure_set_free(&s);
}

int main(void)
{
    registry();
    fio();
    fio_crafted();
    stress_ng();
    redis_benchmark();
    pgbench();
    sysbench();
    hackbench_memcaslap();
    hostile();
    regex();
    json_path();
    specs();
    headlines();
    headline_table();
    return done_testing();
}
