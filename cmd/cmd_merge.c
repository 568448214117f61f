/* pressmark merge OTHER.db...: one place where all machines' results meet
 * (the merging itself is store/merge.c). */
#include <stdio.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "store/db.h"
#include "store/merge.h"

static const struct opt no_options[] = { { .type = OPT_END } };

int cmd_merge(int argc, char **argv)
{
    const struct cmd_group groups[] = { { NULL, no_options, NULL }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = {
        .name = "merge", .groups = groups, .ngroups = 2, .max_args = -1,
        .usage = "usage: pressmark merge OTHER.db... [--db PATH]\n\n"
                 "Imports the runs of other machines' results databases into this one, each with\n"
                 "its machine and kernel. Runs are known by their UUID: merging the same file twice\n"
                 "adds nothing the second time. An older database is migrated in a private copy;\n"
                 "the file itself is never changed. Runs still 'running' there are left out.\n",
    };
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("merge", "name at least one database to merge (pressmark merge OTHER.db...)");
    struct pm_db db;
    struct pm_err err;
    if (store_db_open(&db, store_db_path(), true, &err) < 0)
        return cli_usage("merge", "%s", err.msg);
    int rc = 0;
    for (int i = first; i < argc; i++) {
        int added = 0, present = 0;
        if (merge_database(&db, argv[i], NULL, 0, &added, &present, &err) < 0) {
            rc = cli_usage("merge", "%s", err.msg);
            continue;
        }
        printf("%s: %d run%s added, %d already here\n", argv[i], added, added == 1 ? "" : "s", present);
    }
    store_db_close(&db);
    return rc;
}
