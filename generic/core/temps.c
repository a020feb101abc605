/*
 * temps.c --
 *
 *	The temporary files this process is writing ("path.tmp-PID" of
 *	reports and traces), so that a signal that ends the process at once
 *	(a second Ctrl-C during a run) can still remove them.  Only the main
 *	thread adds and removes names, with signals blocked meanwhile; the
 *	reader threads block every signal (ring.c), so a handler never sees
 *	the list half-changed.
 */

#include <signal.h>
#include <unistd.h>
#include "rbInt.h"

static char **temps;
static int ntemps, capTemps;

/*
 * RbTempAdd --
 *	Records path (copied) as a temporary file being written.
 */
void
RbTempAdd(const char *path)
{
    char *copy = Rb_Strdup(path);
    sigset_t all, old;

    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    if (ntemps == capTemps) {
	capTemps = capTemps ? 2 * capTemps : 16;
	temps = Rb_ReallocArray(temps, capTemps, sizeof(char *));
    }
    temps[ntemps++] = copy;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * RbTempForget --
 *	path is no longer a temporary file of this process (renamed to its
 *	final name, or removed).  A name never added is ignored.
 */
void
RbTempForget(const char *path)
{
    sigset_t all, old;
    char *gone = NULL;
    int i;

    if (path == NULL) {
	return;
    }
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    for (i = ntemps - 1; i >= 0; i--) {
	if (strcmp(temps[i], path) == 0) {
	    gone = temps[i];
	    temps[i] = temps[--ntemps];
	    break;
	}
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(gone);
}

/*
 * RbTempRemoveAll --
 *	Unlinks every temporary file being written.  Async-signal-safe: for
 *	a signal handler that ends the process next.
 */
void
RbTempRemoveAll(void)
{
    int i;

    for (i = 0; i < ntemps; i++) {
	unlink(temps[i]);
    }
}
