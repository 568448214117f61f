#ifndef PM_RMTREE_H
#define PM_RMTREE_H
/* Removing a directory another user could write into, as root: every step
 * is relative to a descriptor of the directory above it (openat, unlinkat)
 * and no symbolic link is ever followed, so a link or a rename made
 * meanwhile cannot send root's unlink anywhere else. Nor does it cross
 * into a mount inside the tree (another device, or a bind mount of the
 * same one): what is mounted there is not the tree's to remove. */

/* Everything inside path (not path itself), at most 64 levels deep; its
 * last component is opened without following a link. 0, or -1 with errno
 * of the first step that failed (ENOENT: path is not there; EXDEV: a
 * directory below is another mount, left as it is). */
int pm_empty_tree(const char *path);
/* The same for the directory open as fd, which it takes (closes). */
int pm_empty_tree_fd(int fd);

#endif
