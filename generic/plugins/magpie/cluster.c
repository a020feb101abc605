/*
 * cluster.c --
 *
 *	Behavioural clustering of canonical request forms and the workload
 *	model built from it (Magpie, section 5).  Clustering is
 *	incremental: a request joins the cluster whose representative (the
 *	paper's centroid) is nearest by MgEditDistance, if that distance is
 *	at most -threshold times the larger of the two forms' distances
 *	from the null request; otherwise it founds a new cluster.  The
 *	representative runs with the cluster: whenever a new distinct form
 *	joins, it becomes the kept form of least count-weighted distance
 *	to the cluster's other kept forms (its medoid).  A form seen
 *	before goes straight to its cluster (a hash of form texts, at most
 *	MAX_CACHED), so a steady workload costs one hash lookup per request.
 *
 *	Nothing per request is kept: a cluster holds its founding form,
 *	counters, the first MAX_SAMPLE distinct forms of its members with
 *	their counts and distances (for its representative and diameter),
 *	label counts (its contents) and the events of its first -outliers
 *	members (listed if the cluster stays that small).  Memory is
 *	bounded by the number of clusters.
 */

#include <math.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

#define MAX_SAMPLE 32
#define MAX_LABELS 16
#define MAX_CACHED 10000

typedef struct Form {
    MgToken *tok;
    int ntok;
    char *text;
    int64_t count;		/* Members with exactly this form. */
    double cpuNs, diskBytes, netBytes;	/* One such member's totals. */
} Form;

typedef struct Member {
    int64_t id;
    char *events;		/* Record numbers of its events. */
    char *text;
} Member;

typedef struct Cluster {
    Form leader;		/* The founding form. */
    int rep;			/* The representative: sample[rep], or the
				 * leader while nothing is sampled (-1). */
    double repD0;		/* Its distance from the null request. */
    double *dist;		/* [MAX_SAMPLE * MAX_SAMPLE] distances
				 * between the sampled forms. */
    int64_t size;
    double radius;		/* Largest distance of a form from the
				 * representative when it joined. */
    double cpuNs, diskBytes, netBytes;	/* Sums over members. */
    Form sample[MAX_SAMPLE];
    int nsample;
    int64_t forms;		/* Distinct forms, while the cache counts. */
    char *labels[MAX_LABELS];
    int64_t labelCount[MAX_LABELS];
    int nlabels;
    int64_t otherLabels;
    Member *members;		/* The first -outliers members. */
    int nmembers;
} Cluster;

/* A cached form: its cluster and sample slot (-1 if not sampled). */
typedef struct Cached {
    int cluster, sample;
} Cached;

struct MgClusterer {
    const MgSchema *s;
    MgCost cost;
    double threshold;
    int outliers;
    int maxClusters;
    Cluster *clusters;
    int nclusters, cap;
    Tcl_HashTable cache;	/* form text -> Cached */
    int64_t requests;
    double cpuNs, diskBytes, netBytes;	/* Totals of all requests. */
};

static void
CopyForm(Form *f, const MgToken *t, int n, const char *text,
	const MgRequest *r)
{
    f->tok = Rb_AllocArray(n, sizeof(MgToken));
    memcpy(f->tok, t, n * sizeof(MgToken));
    f->ntok = n;
    f->text = Rb_Strdup(text);
    f->count = 0;
    f->cpuNs = (double)r->cpuNs;
    f->diskBytes = (double)r->diskBytes;
    f->netBytes = (double)r->netBytes;
}

static void
FreeForm(Form *f)
{
    if (f->tok) {
	free(f->tok);
    }
    if (f->text) {
	free(f->text);
    }
}

/*
 * MgClustererNew --
 *	An empty clusterer for requests of schema s, founding at most
 *	maxClusters clusters.
 */
MgClusterer *
MgClustererNew(const MgSchema *s, const MgCost *cost, double threshold,
	int outliers, int maxClusters)
{
    MgClusterer *c = Rb_Alloc(sizeof(MgClusterer));

    c->s = s;
    c->cost = *cost;
    c->threshold = threshold;
    c->outliers = outliers;
    c->maxClusters = maxClusters;
    Tcl_InitHashTable(&c->cache, TCL_STRING_KEYS);
    return c;
}

/*
 * MgClustererFree --
 *	Frees c and everything it holds.
 */
void
MgClustererFree(MgClusterer *c)
{
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;
    int i, k;

    if (c == NULL) {
	return;
    }
    for (i = 0; i < c->nclusters; i++) {
	Cluster *cl = &c->clusters[i];

	FreeForm(&cl->leader);
	free(cl->dist);
	for (k = 0; k < cl->nsample; k++) {
	    FreeForm(&cl->sample[k]);
	}
	for (k = 0; k < cl->nlabels; k++) {
	    free(cl->labels[k]);
	}
	for (k = 0; k < cl->nmembers; k++) {
	    free(cl->members[k].events);
	    free(cl->members[k].text);
	}
	if (cl->members) {
	    free(cl->members);
	}
    }
    if (c->clusters) {
	free(c->clusters);
    }
    for (e = Tcl_FirstHashEntry(&c->cache, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	free(Tcl_GetHashValue(e));
    }
    Tcl_DeleteHashTable(&c->cache);
    free(c);
}

/*
 * RepOf --
 *	The representative form of a cluster.
 */
static const Form *
RepOf(const Cluster *cl)
{
    return cl->rep >= 0 ? &cl->sample[cl->rep] : &cl->leader;
}

/*
 * Medoid --
 *	The sampled form with the least distance, weighted by member
 *	counts, to the other sampled forms (the first of equals), or -1
 *	if nothing is sampled.
 */
static int
Medoid(const Cluster *cl)
{
    double best = INFINITY;
    int i, j, found = -1;

    for (i = 0; i < cl->nsample; i++) {
	double sum = 0;

	for (j = 0; j < cl->nsample; j++) {
	    sum += cl->dist[i * MAX_SAMPLE + j] * (double)cl->sample[j].count;
	}
	if (sum < best) {
	    best = sum;
	    found = i;
	}
    }
    return found;
}

/*
 * Nearest --
 *	The cluster whose representative is nearest to the form, or -1 if
 *	none is within the threshold.  Representatives whose distance from
 *	the null request differs from the form's by more than the best
 *	distance so far are skipped (the triangle inequality bounds their
 *	distance below).
 */
static int
Nearest(MgClusterer *c, const MgToken *t, int n, double d0, double *dist)
{
    double best = INFINITY;
    int i, found = -1;

    for (i = 0; i < c->nclusters; i++) {
	Cluster *cl = &c->clusters[i];
	const Form *rep = RepOf(cl);
	double d;

	if (fabs(cl->repD0 - d0) >= best) {
	    continue;
	}
	d = MgEditDistance(t, n, rep->tok, rep->ntok, &c->cost);
	if (d < best) {
	    best = d;
	    found = i;
	}
    }
    if (found >= 0 && best <= c->threshold
	    * fmax(d0, c->clusters[found].repD0)) {
	*dist = best;
	return found;
    }
    return -1;
}

/*
 * ChooseRep --
 *	Makes the cluster's medoid its representative, as its members'
 *	counts now stand.
 */
static void
ChooseRep(const MgClusterer *c, Cluster *cl)
{
    const Form *rep;

    cl->rep = Medoid(cl);
    rep = RepOf(cl);
    cl->repD0 = MgTokensWeight(rep->tok, rep->ntok, &c->cost);
}

/*
 * Resample --
 *	Adds form t (text given) to cluster cl's samples: its distances to
 *	the others, then the representative chosen again.
 * Results: its sample slot.
 */
static int
Resample(MgClusterer *c, Cluster *cl, const MgToken *t, int n,
	const char *text, const MgRequest *r)
{
    int k = cl->nsample++, j;

    CopyForm(&cl->sample[k], t, n, text, r);
    if (cl->dist == NULL) {
	cl->dist = Rb_AllocArray(MAX_SAMPLE * MAX_SAMPLE, sizeof(double));
    }
    for (j = 0; j <= k; j++) {
	double d = j == k ? 0 : MgEditDistance(t, n, cl->sample[j].tok,
		cl->sample[j].ntok, &c->cost);

	cl->dist[k * MAX_SAMPLE + j] = cl->dist[j * MAX_SAMPLE + k] = d;
    }
    return k;
}

/*
 * CountLabel --
 *	Counts the member's label in the cluster's contents.
 */
static void
CountLabel(Cluster *cl, const char *label)
{
    int k;

    for (k = 0; k < cl->nlabels; k++) {
	if (strcmp(cl->labels[k], label) == 0) {
	    cl->labelCount[k]++;
	    return;
	}
    }
    if (cl->nlabels < MAX_LABELS) {
	cl->labels[cl->nlabels] = Rb_Strdup(label);
	cl->labelCount[cl->nlabels++] = 1;
    } else {
	cl->otherLabels++;
    }
}

/*
 * MgClustererAdd --
 *	Assigns request r, of canonical form t (text given), to a cluster,
 *	founding one if none is near enough; labelText (or NULL) counts in
 *	the cluster's contents.
 * Results: the cluster's index, or -1 (nothing counted) if a new
 *	cluster would be one more than the most allowed.
 */
int
MgClustererAdd(MgClusterer *c, const MgRequest *r, const MgToken *t, int n,
	const char *text, const char *labelText)
{
    Tcl_HashEntry *e = Tcl_FindHashEntry(&c->cache, text);
    Cached *cached = e ? Tcl_GetHashValue(e) : NULL;
    double dist = 0, d0 = MgTokensWeight(t, n, &c->cost);
    Cluster *cl;
    int x, isNew;

    if (cached != NULL) {
	x = cached->cluster;
    } else {
	x = Nearest(c, t, n, d0, &dist);
	if (x < 0 && c->nclusters == c->maxClusters) {
	    return -1;
	}
	if (x < 0) {
	    if (c->nclusters == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->clusters = Rb_ReallocArray(c->clusters, c->cap,
			sizeof(Cluster));
	    }
	    x = c->nclusters++;
	    cl = &c->clusters[x];
	    memset(cl, 0, sizeof(*cl));
	    CopyForm(&cl->leader, t, n, text, r);
	    cl->rep = -1;
	    cl->repD0 = d0;
	    cl->members = Rb_AllocArray(c->outliers, sizeof(Member));
	}
    }
    cl = &c->clusters[x];
    if (cached == NULL) {
	cl->forms++;
	if (dist > cl->radius) {
	    cl->radius = dist;
	}
	if (c->cache.numEntries < MAX_CACHED) {
	    cached = Rb_Alloc(sizeof(Cached));
	    cached->cluster = x;
	    cached->sample = -1;
	    if (cl->nsample < MAX_SAMPLE) {
		cached->sample = Resample(c, cl, t, n, text, r);
	    }
	    e = Tcl_CreateHashEntry(&c->cache, text, &isNew);
	    Tcl_SetHashValue(e, cached);
	}
    }
    if (cached != NULL && cached->sample >= 0) {
	cl->sample[cached->sample].count++;
	ChooseRep(c, cl);
    }
    cl->size++;
    cl->cpuNs += (double)r->cpuNs;
    cl->diskBytes += (double)r->diskBytes;
    cl->netBytes += (double)r->netBytes;
    if (labelText != NULL) {
	CountLabel(cl, labelText);
    }
    if (cl->nmembers < c->outliers) {
	Member *m = &cl->members[cl->nmembers++];
	Tcl_DString ds;

	m->id = r->id;
	Tcl_DStringInit(&ds);
	MgRequestEvents(r, &ds);
	m->events = Rb_Strdup(Tcl_DStringValue(&ds));
	Tcl_DStringFree(&ds);
	m->text = Rb_Strdup(text);
    }
    c->requests++;
    c->cpuNs += (double)r->cpuNs;
    c->diskBytes += (double)r->diskBytes;
    c->netBytes += (double)r->netBytes;
    return x;
}

/*
 * Diameter --
 *	The cluster's diameter as Magpie's Table 2 gives it: the mean
 *	distance of its members from its representative, over the members
 *	whose forms were sampled (every member while the cluster has at
 *	most MAX_SAMPLE distinct forms).
 */
static double
Diameter(const Cluster *cl)
{
    double sum = 0, n = 0;
    int j;

    if (cl->rep < 0) {
	return 0;
    }
    for (j = 0; j < cl->nsample; j++) {
	sum += cl->dist[cl->rep * MAX_SAMPLE + j]
		* (double)cl->sample[j].count;
	n += (double)cl->sample[j].count;
    }
    return n > 0 ? sum / n : 0;
}

/*
 * Contents --
 *	"label NN%, ..." by decreasing count (ties by label).
 */
static void
Contents(const Cluster *cl, Tcl_DString *out)
{
    int order[MAX_LABELS], i, j;
    char buf[64];

    for (i = 0; i < cl->nlabels; i++) {
	order[i] = i;
    }
    for (i = 1; i < cl->nlabels; i++) {
	for (j = i; j > 0; j--) {
	    int a = order[j - 1], b = order[j];

	    if (cl->labelCount[a] > cl->labelCount[b]
		    || (cl->labelCount[a] == cl->labelCount[b]
		    && strcmp(cl->labels[a], cl->labels[b]) <= 0)) {
		break;
	    }
	    order[j - 1] = b;
	    order[j] = a;
	}
    }
    for (i = 0; i < cl->nlabels; i++) {
	if (i > 0) {
	    Tcl_DStringAppend(out, ", ", 2);
	}
	Tcl_DStringAppend(out, cl->labels[order[i]], -1);
	snprintf(buf, sizeof(buf), " %.0f%%",
		100.0 * (double)cl->labelCount[order[i]] / (double)cl->size);
	Tcl_DStringAppend(out, buf, -1);
    }
    if (cl->otherLabels) {
	snprintf(buf, sizeof(buf), "%sother %.0f%%", cl->nlabels ? ", " : "",
		100.0 * (double)cl->otherLabels / (double)cl->size);
	Tcl_DStringAppend(out, buf, -1);
    }
}

static void
AddColumns(Rb_Attribute *t, const char *const *spec)
{
    for (; spec[0] != NULL; spec += 3) {
	Rb_AttrAddColumn(t, spec[0], spec[1], spec[2][0] == 't');
    }
}

/*
 * ModelRow --
 *	One resource of the workload model: parsed and model totals and
 *	the model's relative error.
 * Results: the error (0 when nothing was parsed).
 */
static double
ModelRow(Rb_Attribute *t, const char *name, double parsed, double model,
	double scale)
{
    int r = Rb_AttrAddRow(t);
    double err = parsed > 0 ? fabs(model - parsed) / parsed : 0;

    Rb_AttrSetText(t, r, 0, name);
    Rb_AttrSetNum(t, r, 1, parsed / scale);
    Rb_AttrSetNum(t, r, 2, model / scale);
    Rb_AttrSetNum(t, r, 3, err);
    return err;
}

/*
 * MgClustererReport --
 *	Sets the Attributes Clusters, ClusterCount, MeanDiameter,
 *	MeanSeparation, Outliers, WorkloadModel and ModelError on a's Flow.
 */
void
MgClustererReport(MgClusterer *c, Rb_Analyzer *a, int partial)
{
    static const char *const clusterCols[] = {
	"cluster", "", "n", "size", "", "n", "fraction", "", "n",
	"contents", "", "t", "representative", "", "t", "d0", "", "n",
	"diameter", "", "n", "radius", "", "n", "separation", "", "n",
	"nearest", "", "n", "forms", "", "n", "cpu", "s", "n",
	"diskBytes", "bytes", "n", "netBytes", "bytes", "n", NULL
    };
    static const char *const outlierCols[] = {
	"id", "", "n", "cluster", "", "n", "events", "", "t",
	"canonical", "", "t", NULL
    };
    static const char *const modelCols[] = {
	"resource", "", "t", "parsed", "", "n", "model", "", "n",
	"error", "", "n", NULL
    };
    Rb_Attribute *ct, *ot, *mt;
    const Form **rep = Rb_AllocArray(c->nclusters + 1, sizeof(Form *));
    double *diam = Rb_AllocArray(c->nclusters + 1, sizeof(double));
    double mCpu = 0, mDisk = 0, mNet = 0, err, sumDiam = 0, sumSep = 0;
    int i, j, k, nsep = 0;

    for (i = 0; i < c->nclusters; i++) {
	rep[i] = RepOf(&c->clusters[i]);
	diam[i] = Diameter(&c->clusters[i]);
    }
    ct = Rb_AttrCreate("Clusters", RB_ATTR_TABLE, "", "behavioural "
	    "clusters of canonical request forms (Magpie's workload model)");
    AddColumns(ct, clusterCols);
    ot = Rb_AttrCreate("Outliers", RB_ATTR_TABLE, "", "requests of "
	    "clusters no larger than -outliers, with their events");
    AddColumns(ot, outlierCols);
    for (i = 0; i < c->nclusters; i++) {
	const Cluster *cl = &c->clusters[i];
	double sep = INFINITY, d;
	int nearest = -1, r = Rb_AttrAddRow(ct);
	Tcl_DString ds;

	for (j = 0; j < c->nclusters; j++) {
	    if (j == i) {
		continue;
	    }
	    d = MgEditDistance(rep[i]->tok, rep[i]->ntok, rep[j]->tok,
		    rep[j]->ntok, &c->cost);
	    if (d < sep) {
		sep = d;
		nearest = j;
	    }
	}
	Tcl_DStringInit(&ds);
	Contents(cl, &ds);
	Rb_AttrSetNum(ct, r, 0, i + 1);
	Rb_AttrSetNum(ct, r, 1, (double)cl->size);
	Rb_AttrSetNum(ct, r, 2, (double)cl->size / (double)c->requests);
	Rb_AttrSetText(ct, r, 3, Tcl_DStringValue(&ds));
	Rb_AttrSetText(ct, r, 4, rep[i]->text);
	Rb_AttrSetNum(ct, r, 5, MgTokensWeight(rep[i]->tok, rep[i]->ntok,
		&c->cost));
	Rb_AttrSetNum(ct, r, 6, diam[i]);
	Rb_AttrSetNum(ct, r, 7, cl->radius);
	Rb_AttrSetNum(ct, r, 8, nearest >= 0 ? sep : 0);
	sumDiam += diam[i];
	if (nearest >= 0) {
	    sumSep += sep;
	    nsep++;
	}
	Rb_AttrSetNum(ct, r, 9, nearest + 1);
	Rb_AttrSetNum(ct, r, 10, (double)cl->forms);
	Rb_AttrSetNum(ct, r, 11, cl->cpuNs / cl->size / 1e9);
	Rb_AttrSetNum(ct, r, 12, cl->diskBytes / cl->size);
	Rb_AttrSetNum(ct, r, 13, cl->netBytes / cl->size);
	Tcl_DStringFree(&ds);
	if (cl->size <= c->outliers) {
	    for (k = 0; k < cl->nmembers; k++) {
		int o = Rb_AttrAddRow(ot);

		Rb_AttrSetNum(ot, o, 0, (double)cl->members[k].id);
		Rb_AttrSetNum(ot, o, 1, i + 1);
		Rb_AttrSetText(ot, o, 2, cl->members[k].events);
		Rb_AttrSetText(ot, o, 3, cl->members[k].text);
	    }
	}
	mCpu += (double)cl->size * rep[i]->cpuNs;
	mDisk += (double)cl->size * rep[i]->diskBytes;
	mNet += (double)cl->size * rep[i]->netBytes;
    }
    mt = Rb_AttrCreate("WorkloadModel", RB_ATTR_TABLE, "", "total "
	    "resources of the parsed requests and of the model (each "
	    "cluster's representative times its size), relative error");
    AddColumns(mt, modelCols);
    err = ModelRow(mt, "cpu", c->cpuNs, mCpu, 1e9);
    err = fmax(err, ModelRow(mt, "diskBytes", c->diskBytes, mDisk, 1));
    err = fmax(err, ModelRow(mt, "netBytes", c->netBytes, mNet, 1));
    ct->partial = ot->partial = mt->partial = partial;
    Rb_AnalyzerSet(a, ct);
    Rb_AnalyzerSet(a, ot);
    Rb_AnalyzerSet(a, mt);
    Rb_AnalyzerSet(a, Rb_AttrScalar("ClusterCount", c->nclusters, "",
	    "behavioural clusters found"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanDiameter", c->nclusters > 0
	    ? sumDiam / c->nclusters : 0, "",
	    "average cluster diameter (Magpie section 5)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanSeparation", nsep > 0
	    ? sumSep / nsep : 0, "", "average distance from a cluster's "
	    "representative to the nearest other's (Magpie section 5)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ModelError", err, "", "largest "
	    "relative error of the workload model's total resources"));
    free(rep);
    free(diam);
}
