/* Is the other end of a connection the private server (kvserver.h)? Its
 * user owns the directory its socket is in and could put any socket
 * there; with --port, anyone could listen on the port first. Nothing is
 * sent before the kernel says who answers. */
#include "workloads/kvserver.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The inode of the socket listening on 127.0.0.1:port (/proc/net/tcp's
 * state 0A), 0 when none. */
static unsigned long listener_inode(unsigned port)
{
    FILE *f = fopen("/proc/net/tcp", "re");
    if (!f)
        return 0;
    char line[512], want[32];
    snprintf(want, sizeof want, "0100007F:%04X", port);
    unsigned long inode = 0;
    while (!inode && fgets(line, sizeof line, f)) {
        char local[64], remote[64], st[8];
        unsigned long ino;
        if (sscanf(line, "%*d: %63s %63s %7s %*s %*s %*s %*s %*s %lu", local, remote, st, &ino) == 4 &&
            strcmp(local, want) == 0 && strcmp(st, "0A") == 0)
            inode = ino;
    }
    fclose(f);
    return inode;
}

/* Does pid hold the socket of that inode among its descriptors? */
static bool holds_socket(pid_t pid, unsigned long inode)
{
    char dir[64], want[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    snprintf(want, sizeof want, "socket:[%lu]", inode);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        char link[64];
        ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            found = strcmp(link, want) == 0;
        }
    }
    closedir(d);
    return found;
}

int kv_peer_check(const struct kv_server *s, int fd, unsigned port, struct pm_err *err)
{
    if (port) {
        unsigned long inode = listener_inode(port);
        if (!inode || !holds_socket(s->pid, inode))
            return pm_errf(err, "127.0.0.1:%u is listened on by another process than the server (pid %d)", port,
                           (int)s->pid);
        return 0;
    }
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
        return pm_errf(err, "SO_PEERCRED: %s", strerror(errno));
    if (cr.pid != s->pid || cr.uid != s->uid)
        return pm_errf(err, "the socket's other end is pid %d (uid %u), not the server (pid %d, uid %u)", (int)cr.pid,
                       (unsigned)cr.uid, (int)s->pid, (unsigned)s->uid);
    return 0;
}
