/*
 * transformers.h --
 *
 *	The built-in Transformer classes and the few helpers they share.
 */

#ifndef RB_TRANSFORMERS_H
#define RB_TRANSFORMERS_H

#include "core/rbInt.h"

extern const Rb_TransformerClass Rb_VolumeMapTransformerClass;
extern const Rb_TransformerClass Rb_CoalesceTransformerClass;
extern const Rb_TransformerClass Rb_DeviceMapTransformerClass;
extern const Rb_TransformerClass Rb_TimeTransformerClass;
extern const Rb_TransformerClass Rb_SampleTransformerClass;
extern const Rb_TransformerClass Rb_SplitTransformerClass;

/* Most pieces one record becomes in a SplitTransformer. */
#define RB_SPLIT_MAX_PIECES 64

/* Resolves a field name against the run's schema into *index; on failure
 * sets t->err naming the known fields and returns TCL_ERROR. */
int		RbXfField(Rb_Transformer *t, const Rb_Schema *schema,
		    const char *name, int *index);

/* Reads an "-unmapped" option value: 0 pass, 1 drop; TCL_ERROR with a
 * message in interp for anything else. */
int		RbXfUnmappedPolicy(Tcl_Interp *interp, const char *value,
		    int *drop);

/* Reads one element of a list as a non-negative 64-bit integer, naming
 * what it is in the error. */
int		RbXfGetCount(Tcl_Interp *interp, Tcl_Obj *obj,
		    const char *what, int64_t *value);

#endif /* RB_TRANSFORMERS_H */
