/*
 * chrome.h --
 *
 *	Records as Chrome trace-event JSON, for TraceWriter -format chrome
 *	(chrome.c).
 */

#ifndef RB_CHROME_H
#define RB_CHROME_H

#include "rubicon.h"

typedef struct RbChromeWriter RbChromeWriter;

RbChromeWriter *	RbChromeOpen(FILE *fp, const Rb_Schema *s,
			    int64_t epochNs);
void			RbChromeWrite(RbChromeWriter *w, const Rb_Batch *b,
			    const uint32_t *sel, int nsel);
void			RbChromeClose(RbChromeWriter *w, int abandon);

#endif /* RB_CHROME_H */
