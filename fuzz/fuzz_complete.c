/* Tab completion's words from a database, through bash itself: the input
 * is a list of labels (cut at NUL and newline), offered by a stand-in for
 * `pressmark __complete labels` to completion/pressmark's _pressmark in a
 * bash that lives for the whole run, completing `pressmark show <Tab>`.
 * Properties: every label comes back, once, and nothing else does; each
 * offered word, read as the shell reads a typed word (backslashes and
 * $'...'), is its label byte for byte, so completing neither expanded it
 * ($(...), backticks, $VAR, globs) nor split it, and accepting it types
 * the label itself. The bash runs as nobody (when root) with a PATH of the
 * stand-in alone, in the harness's own directory. */
#include "fuzz/fuzz.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/fileio.h"

#define MAX_WORDS 64

static char dir[64], words_path[128];
static pid_t bash_pid;
static int to_bash = -1, from_bash = -1;

static void stop_bash(void)
{
    if (to_bash >= 0)
        close(to_bash);
    if (from_bash >= 0)
        close(from_bash);
    if (bash_pid > 0) {
        kill(bash_pid, SIGKILL);
        waitpid(bash_pid, NULL, 0);
    }
    pm_remove_all(dir);
}

/* completion/pressmark beside the build: build/fuzz/x -> ../../completion. */
static void completion_path(char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        abort();
    exe[n] = '\0';
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            break;
        *slash = '\0';
        snprintf(buf, len, "%s/completion/pressmark", exe);
        if (access(buf, R_OK) == 0)
            return;
    }
    fprintf(stderr, "fuzz_complete: completion/pressmark not found beside %s\n", exe);
    abort();
}

/* To bash and from it by plain reads and writes, again after a signal:
 * libFuzzer's timer interrupts them. */
static int say(const char *text)
{
    for (size_t len = strlen(text); len;) {
        ssize_t n = write(to_bash, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The next NUL-terminated record bash wrote, into line; its length with
 * the NUL, or -1 when bash is gone. */
static ssize_t record(char *line, size_t cap)
{
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t r = read(from_bash, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        if (n + 1 < cap)
            line[n++] = c;
        if (c == '\0')
            return (ssize_t)n;
    }
}

static void start_bash(void)
{
    char comp[PATH_MAX + 32], pm[160];
    completion_path(comp, sizeof comp);
    snprintf(pm, sizeof pm, "%s/pressmark", dir);
    FILE *f = fopen(pm, "w");
    if (!f || fprintf(f, "#!/bin/sh\ncase \"$*\" in *'__complete labels'*) exec /bin/cat %s ;; esac\n", words_path) < 0 ||
        fclose(f) != 0 || chmod(pm, 0755) < 0 || chmod(dir, 0755) < 0)
        abort();
    int in[2], out[2];
    if (pipe(in) < 0 || pipe(out) < 0)
        abort();
    bash_pid = fork();
    if (bash_pid < 0)
        abort();
    if (bash_pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        if (chdir(dir) < 0)
            _exit(127);
        /* As root, nobody: a word that ran after all could do little. */
        if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
            _exit(127);
        char path_env[96];
        snprintf(path_env, sizeof path_env, "PATH=%s", dir);
        char *envp[] = { path_env, "LC_ALL=C", NULL };
        char *bargv[] = { "/bin/bash", "--norc", "--noprofile", NULL };
        execve("/bin/bash", bargv, envp);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_bash = in[1];
    from_bash = out[0];
    /* The completion is sourced from the real file; the function below
     * completes `pressmark show ""` and writes each candidate and then an
     * empty one, NUL-terminated. */
    char setup[PATH_MAX + 400];
    snprintf(setup, sizeof setup,
             ". '%s' || exit 1\n"
             "offer() { COMP_WORDS=(pressmark show ''); COMP_CWORD=2; COMPREPLY=(); _pressmark;"
             " local w; for w in \"${COMPREPLY[@]}\"; do printf '%%s\\0' \"$w\"; done; printf '\\0'; }\n",
             comp);
    if (say(setup) < 0)
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    /* In /tmp whatever TMPDIR says: the bash runs as nobody, who must reach
     * the stand-in through every directory above it. */
    snprintf(dir, sizeof dir, "/tmp/pressmark-fuzz.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(words_path, sizeof words_path, "%s/words", dir);
    atexit(stop_bash);
    start_bash();
    return 0;
}

/* A word as the shell reads it when typed: \c is c; $'...' holds C
 * escapes (\NNN octal, \xHH, \n, \t, \\, \'); anything else is itself.
 * -1 when it is not such a word (a bare space, quote or $ would be). */
static int shell_word(const char *w, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = w; *p;) {
        if (o + 1 >= len)
            return -1;
        if (p[0] == '$' && p[1] == '\'') {
            for (p += 2; *p && *p != '\''; ) {
                if (o + 1 >= len)
                    return -1;
                if (*p != '\\') {
                    out[o++] = *p++;
                    continue;
                }
                p++;
                if (*p >= '0' && *p <= '7') {
                    int v = 0;
                    for (int k = 0; k < 3 && *p >= '0' && *p <= '7'; k++)
                        v = v * 8 + (*p++ - '0');
                    out[o++] = (char)v;
                } else if (*p == 'x') {
                    int v = 0, k = 0;
                    for (p++; k < 2 && strchr("0123456789abcdefABCDEF", *p) && *p; k++, p++)
                        v = v * 16 + (*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
                    out[o++] = (char)v;
                } else {
                    const char *from = "ntrabefv\\'\"", *to = "\n\t\r\a\b\x1b\f\v\\'\"";
                    const char *c = *p ? strchr(from, *p) : NULL;
                    if (!c)
                        return -1;
                    out[o++] = to[c - from];
                    p++;
                }
            }
            if (*p != '\'')
                return -1;
            p++;
        } else if (*p == '\\') {
            if (!p[1])
                return -1;
            out[o++] = p[1];
            p += 2;
        } else if ((unsigned char)*p >= 0x80 || (*p && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                  "0123456789._/:@%+=-", *p)) ||
                   (p != w && *p == '#') || (p != w && *p == '~' && p[-1] != '=' && p[-1] != ':')) {
            /* What printf %q leaves unescaped (a # but first in the word,
             * a ~ but first or after = or :, where bash would expand it);
             * anything else bare would be read by the shell as more than
             * itself. */
            out[o++] = *p++;
        } else {
            return -1;
        }
    }
    out[o] = '\0';
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The labels, as __complete would print them: no empty ones, no
     * control characters (it leaves those out), each once. */
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *want[MAX_WORDS];
    size_t n = 0;
    for (char *p = text, *end = text + size; p < end && n < MAX_WORDS; p += strlen(p) + 1) {
        char *nl;
        while ((nl = strchr(p, '\n')))
            *nl = '\0';
        bool clean = *p != '\0';
        for (const unsigned char *c = (const unsigned char *)p; *c && clean; c++)
            clean = *c >= 0x20 && *c != 0x7f;
        for (size_t k = 0; k < n && clean; k++)
            clean = strcmp(want[k], p) != 0;
        if (clean)
            want[n++] = p;
    }
    FILE *w = fopen(words_path, "w");
    if (!w)
        abort();
    for (size_t k = 0; k < n; k++)
        fprintf(w, "%s\n", want[k]);
    if (fclose(w) != 0 || chmod(words_path, 0644) < 0)
        abort();
    FUZZ_ASSERT(say("offer\n") == 0, "bash is gone");
    bool seen[MAX_WORDS] = { false };
    size_t got = 0;
    static char line[65536];
    for (;;) {
        ssize_t len = record(line, sizeof line);
        FUZZ_ASSERT(len > 0, "bash ended or said nothing (%zd)", len);
        if (len == 1)
            break;                  /* the empty record: the end */
        char *decoded = malloc((size_t)len + 1);
        FUZZ_ASSERT(decoded && shell_word(line, decoded, (size_t)len + 1) == 0, "offered '%s' is not one typed word", line);
        size_t k = 0;
        while (k < n && strcmp(want[k], decoded) != 0)
            k++;
        FUZZ_ASSERT(k < n, "offered '%s' (read as '%s'), which is no label", line, decoded);
        FUZZ_ASSERT(!seen[k], "'%s' offered twice", want[k]);
        seen[k] = true;
        got++;
        free(decoded);
    }
    FUZZ_ASSERT(got == n, "%zu of %zu labels offered", got, n);
    free(text);
    return 0;
}
