#ifndef PM_RMTREE_H
#define PM_RMTREE_H
/* Removing a directory another user could write into, as root: every step
 * is relative to a descriptor of the directory above it (openat, unlinkat)
 * and no symbolic link is ever followed, so a link or a rename made
 * meanwhile cannot send root's unlink anywhere else. */

/* Everything inside path (not path itself), at most 64 levels deep; its
 * last component is opened without following a link. 0, or -1 with errno
 * of the first step that failed (ENOENT: path is not there). */
int pm_empty_tree(const char *path);

#endif
