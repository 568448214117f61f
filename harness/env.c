#include "harness/env.h"
#include <string.h>

int run_env_up(struct run_env *env, int64_t run_id, struct kv_list *meta, struct pm_err *err)
{
    (void)err;
    env->run_id = run_id;
    if (!env->cfg || !env->cfg->has_cap) {
        kv_set(meta, "cap.method", "none");
        return 0;
    }
    return pm_errf(err, "memory caps are not built yet");
}

void run_env_down(struct run_env *env, struct kv_list *meta)
{
    (void)meta;
    env->cgroup_version = 0;
}
