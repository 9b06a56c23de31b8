/*
 * PGFT recognition (see pgft.h and docs/pgft.md).
 *
 * Nothing here looks at node order, GUIDs, port numbers or descriptions to
 * decide whether the fabric is a PGFT.  Among the equivalent labelings,
 * NodeGUIDs choose (hosts and top switches are numbered in GUID order, all
 * other digits follow from those numbers), and parallel links are filed by
 * port number, so two models of one subnet that differ only in node order
 * (OpenSM's GUID order, ibnetdiscover's discovery order) get the same
 * labels, port tables and host order.  Node ids only name nodes in
 * messages:
 *  1. levels: BFS distance from the CAs; every link must join adjacent
 *     levels;
 *  2. parameters: per level, the most common number of distinct parents
 *     (w), distinct children (m) and links per connected pair (p); a node
 *     with more is refused, fewer is a candidate for missing links;
 *  3. node counts per level must be the PGFT's;
 *  4. labels: subtree digits (x_i, i > l) bottom-up: a level-l subtree
 *     is a union of level-(l-1) subtrees joined by common parents
 *     (union-find), it must hold m_l of them; replica digits (x_i, i <= l)
 *     top-down: a replica class (same top-level ancestors) at level l is a
 *     union of level-(l+1) classes joined by common children, it must hold
 *     w_{l+1} of them; (subtree, class) must name one node;
 *  5. every link is checked against the wiring rule on these labels, which
 *     fills the port tables; empty slots are the missing links;
 *  6. with missing links, every endpoint must still reach every endpoint
 *     of its plane up*-down* (bitsets over endpoints).
 */
#include <ibflow/pgft.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LEVEL 0xffu
#define NAME_LEN 192

typedef struct rec {
	const ibf_fabric_t *f;
	ibf_pgft_t *pg;
	ibf_err_t *err;
	uint32_t *grp;      /* per node: subtree id within its level */
	uint32_t *cls;      /* per node: replica class within its level */
	uint32_t ncls[IBF_PGFT_MAX_H + 1];
	uint32_t *cpar;     /* [level_off[l] + c]: enclosing level-(l-1)
			       class */
	uint32_t *cdig;     /* [level_off[l] + c]: its digit x_l there */
	uint32_t *cw;       /* [level_off[l] + c]: replica index W */
	uint32_t ngroups[IBF_PGFT_MAX_H + 1];
	uint32_t goff[IBF_PGFT_MAX_H + 2];
	uint32_t *gpar;     /* [goff[l] + g]: enclosing level-(l+1) subtree */
	uint32_t *gdig;     /* [goff[l] + g]: its digit x_{l+1} there */
	uint64_t *gidx;     /* [goff[l] + g]: mixed-radix index, x_h first */
	uint32_t (*hist)[256]; /* [3 * (h+2)]: w, m, p value counts */
} rec_t;

/* '"desc" (0xGUID)' for messages. */
static const char *nm(const ibf_fabric_t *f, ibf_node_id_t n, char *buf)
{
	snprintf(buf, NAME_LEN, "\"%s\" (0x%016" PRIx64 ")",
		 ibf_node_desc(f, n), f->nodes[n].guid);
	return buf;
}

static const char *kind(const ibf_fabric_t *f, ibf_node_id_t n)
{
	return ibf_node_is_switch(f, n) ? "switch" : "host";
}

static ibf_node_id_t peer_node(const ibf_fabric_t *f, ibf_node_id_t n,
			       unsigned q)
{
	ibf_port_id_t pp = ibf_node_port(f, n, q)->peer;

	return pp == IBF_NO_ID ? IBF_NO_ID : f->ports[pp].node;
}

/* ---- 1. levels -------------------------------------------------------- */

static ibf_status_t bfs_levels(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	uint8_t *lev = r->pg->level;
	uint32_t head = 0, tail = 0, n;
	ibf_node_id_t *queue = malloc((size_t)f->nnodes * sizeof(*queue));
	char a[NAME_LEN];
	unsigned q;

	if (!queue)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	memset(lev, NO_LEVEL, f->nnodes);
	for (n = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == IBF_NODE_CA) {
			lev[n] = 0;
			queue[tail++] = n;
		}
	while (head < tail) {
		ibf_node_id_t u = queue[head++], v;

		for (q = 1; q <= f->nodes[u].nports; q++) {
			v = peer_node(f, u, q);
			if (v == IBF_NO_ID || lev[v] != NO_LEVEL)
				continue;
			if (lev[u] + 1u > IBF_PGFT_MAX_H) {
				free(queue);
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"not a PGFT: switch %s is more than %u "
					"hops from the nearest host",
					nm(f, v, a), IBF_PGFT_MAX_H);
			}
			lev[v] = (uint8_t)(lev[u] + 1);
			queue[tail++] = v;
		}
	}
	free(queue);
	for (n = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type == IBF_NODE_ROUTER)
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: router %s", nm(f, n, a));
		if (lev[n] == NO_LEVEL)
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: switch %s is not connected to "
				"any host", nm(f, n, a));
		if (lev[n] > r->pg->h)
			r->pg->h = lev[n];
	}
	if (r->pg->h == 0)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
				   "not a PGFT: no switches");
	return IBF_OK;
}

static ibf_status_t check_adjacent(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	const uint8_t *lev = r->pg->level;
	char a[NAME_LEN], b[NAME_LEN];
	ibf_node_id_t n, v;
	unsigned q, links;

	for (n = 0; n < f->nnodes; n++) {
		links = 0;
		for (q = 1; q <= f->nodes[n].nports; q++) {
			v = peer_node(f, n, q);
			if (v == IBF_NO_ID)
				continue;
			links++;
			if (lev[v] != lev[n])
				continue;
			if (!lev[n])
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"not a PGFT: link between hosts %s "
					"and %s", nm(f, n, a), nm(f, v, b));
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: extra link between level-%u "
				"switches %s and %s (a PGFT links adjacent "
				"levels only)", lev[n], nm(f, n, a),
				nm(f, v, b));
		}
		if (!links)
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: host %s has no links",
				nm(f, n, a));
	}
	return IBF_OK;
}

/* ---- 2. parameters ---------------------------------------------------- */

/* Distinct neighbours of n one level up (dir 1) or down (dir -1), sorted,
 * into nb[]; multiplicities into mult[].  Returns how many. */
static unsigned neighbours(const rec_t *r, ibf_node_id_t n, int dir,
			   ibf_node_id_t *nb, unsigned *mult)
{
	const ibf_fabric_t *f = r->f;
	unsigned q, i, j, cnt = 0, want = r->pg->level[n] + dir;
	ibf_node_id_t v;

	for (q = 1; q <= f->nodes[n].nports; q++) {
		v = peer_node(f, n, q);
		if (v == IBF_NO_ID || r->pg->level[v] != want)
			continue;
		for (i = 0; i < cnt && nb[i] < v; i++)
			;
		if (i < cnt && nb[i] == v) {
			mult[i]++;
			continue;
		}
		for (j = cnt; j > i; j--) {
			nb[j] = nb[j - 1];
			mult[j] = mult[j - 1];
		}
		nb[i] = v;
		mult[i] = 1;
		cnt++;
	}
	return cnt;
}

static unsigned mode(const uint32_t *hist)
{
	unsigned v, best = 0;

	for (v = 1; v < 256; v++)
		if (hist[v] && hist[v] >= hist[best])
			best = v;
	return best;
}

#define HW(r, l) ((r)->hist[3 * (l)])
#define HM(r, l) ((r)->hist[3 * (l) + 1])
#define HP(r, l) ((r)->hist[3 * (l) + 2])

static void level_name(const ibf_pgft_t *pg, unsigned l, char *buf)
{
	if (l)
		snprintf(buf, 32, "level-%u switches", l);
	else
		snprintf(buf, 32, "hosts");
	(void)pg;
}

/* Refuse a node with more parents, children or parallel links than the
 * rest of its level. */
static ibf_status_t check_degrees(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], n;
	unsigned mult[IBF_MAX_PORTS + 1], c, i, l;
	char a[NAME_LEN], b[NAME_LEN], ln[32];

	for (n = 0; n < f->nnodes; n++) {
		l = pg->level[n];
		level_name(pg, l, ln);
		if (l < pg->h) {
			c = neighbours(r, n, 1, nb, mult);
			if (c > pg->w[l + 1])
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"not a PGFT: %s %s: %u parents at "
					"level %u, other %s have %u",
					kind(f, n), nm(f, n, a), c, l + 1, ln,
					pg->w[l + 1]);
			for (i = 0; i < c; i++)
				if (mult[i] > pg->p[l + 1])
					return ibf_err_set(r->err,
						IBF_ERR_INVALID,
						"not a PGFT: %s %s: %u links "
						"to %s, other level-%u/%u "
						"pairs have %u", kind(f, n),
						nm(f, n, a), mult[i],
						nm(f, nb[i], b), l, l + 1,
						pg->p[l + 1]);
		}
		if (l && (c = neighbours(r, n, -1, nb, mult)) > pg->m[l])
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: switch %s: %u children at level "
				"%u, other %s have %u", nm(f, n, a), c, l - 1,
				ln, pg->m[l]);
	}
	return IBF_OK;
}

static ibf_status_t infer_params(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], n;
	unsigned mult[IBF_MAX_PORTS + 1], c, i, l;

	r->hist = calloc(3 * (IBF_PGFT_MAX_H + 2), sizeof(*r->hist));
	if (!r->hist)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	for (n = 0; n < f->nnodes; n++) {
		l = pg->level[n];
		if (l < pg->h) {
			c = neighbours(r, n, 1, nb, mult);
			HW(r, l + 1)[c]++;
			for (i = 0; i < c; i++)
				HP(r, l + 1)[mult[i]]++;
		}
		if (l)
			HM(r, l)[neighbours(r, n, -1, nb, mult)]++;
	}
	for (l = 1; l <= pg->h; l++) {
		pg->w[l] = mode(HW(r, l));
		pg->m[l] = mode(HM(r, l));
		pg->p[l] = mode(HP(r, l));
	}
	return check_degrees(r);
}

/* ---- 3. sizes --------------------------------------------------------- */

static ibf_status_t check_sizes(rec_t *r)
{
	ibf_pgft_t *pg = r->pg;
	const ibf_fabric_t *f = r->f;
	char s[160], ln[32];
	ibf_node_id_t n;
	unsigned l, i;

	pg->wprod[0] = 1;
	for (l = 1; l <= pg->h; l++)
		pg->wprod[l] = pg->wprod[l - 1] * pg->w[l];
	for (l = 0; l <= pg->h; l++) {
		pg->mprod[l] = 1;
		for (i = l + 1; i <= pg->h; i++)
			pg->mprod[l] *= pg->m[i];
	}
	for (n = 0; n < f->nnodes; n++)
		pg->level_count[pg->level[n]]++;
	for (l = 0; l <= pg->h; l++) {
		uint64_t want = pg->mprod[l] * pg->wprod[l];

		if (want == pg->level_count[l])
			continue;
		level_name(pg, l, ln);
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: %s %s: level %u has %u %s, %s needs %"
			PRIu64, want > pg->level_count[l] ? "missing" : "extra",
			l ? "switch" : "host", l, pg->level_count[l],
			l ? "switches" : "hosts",
			ibf_pgft_format(pg, s, sizeof(s)), want);
	}
	pg->level_off[0] = 0;
	for (l = 0; l <= pg->h; l++)
		pg->level_off[l + 1] = pg->level_off[l] + pg->level_count[l];
	return IBF_OK;
}

/* ---- 4. labels -------------------------------------------------------- */

typedef struct gnode {
	uint64_t guid;
	ibf_node_id_t node;
} gnode_t;

static int gnode_cmp(const void *a, const void *b)
{
	const gnode_t *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* idx[n] = n's place among the level-l nodes in NodeGUID order (node id
 * only breaks ties between equal GUIDs, which a subnet does not have). */
static ibf_status_t guid_order(rec_t *r, unsigned l, uint32_t *idx)
{
	const ibf_fabric_t *f = r->f;
	gnode_t *v = malloc(((size_t)r->pg->level_count[l] + 1) * sizeof(*v));
	uint32_t n, k = 0;

	if (!v)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	for (n = 0; n < f->nnodes; n++)
		if (r->pg->level[n] == l)
			v[k++] = (gnode_t){ f->nodes[n].guid, n };
	qsort(v, k, sizeof(*v), gnode_cmp);
	for (n = 0; n < k; n++)
		idx[v[n].node] = n;
	free(v);
	return IBF_OK;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static uint64_t sig_hash(const rec_t *r, ibf_node_id_t u)
{
	ibf_node_id_t nb[IBF_MAX_PORTS + 1];
	unsigned mult[IBF_MAX_PORTS + 1], c, i, j;
	uint32_t g[IBF_MAX_PORTS + 1], t;
	uint64_t hsh = 1469598103934665603ULL;

	c = neighbours(r, u, -1, nb, mult);
	for (i = 0; i < c; i++) {
		g[i] = r->grp[nb[i]];
		for (j = i; j > 0 && g[j - 1] > g[j]; j--) {
			t = g[j];
			g[j] = g[j - 1];
			g[j - 1] = t;
		}
	}
	for (i = 0; i < c; i++)
		hsh = (hsh ^ g[i]) * 1099511628211ULL;
	return hsh;
}


typedef struct sig {
	uint64_t hash;
	ibf_node_id_t node;
} sig_t;

static int sig_cmp(const void *a, const void *b)
{
	const sig_t *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* A level-l subtree (component) joins more level-(l-1) subtrees than m_l:
 * name the switch whose combination of child subtrees is the rarest in it
 * (in a PGFT all switches of a subtree have the same one). */
static ibf_status_t blame_merge(rec_t *r, unsigned l, const uint32_t *comp,
				uint32_t bad, unsigned found)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	ibf_node_id_t u, best = IBF_NO_ID;
	uint32_t i, j, n = 0, bestc = UINT32_MAX;
	char a[NAME_LEN];
	sig_t *sv = malloc((size_t)pg->level_count[l] * sizeof(*sv));

	if (!sv)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	for (u = 0; u < f->nnodes; u++)
		if (pg->level[u] == l && comp[u] == bad) {
			sv[n].hash = sig_hash(r, u);
			sv[n++].node = u;
		}
	qsort(sv, n, sizeof(*sv), sig_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && sv[j].hash == sv[i].hash; j++)
			;
		if (j - i < bestc) {
			bestc = j - i;
			best = sv[i].node;
		}
	}
	free(sv);
	return ibf_err_set(r->err, IBF_ERR_INVALID,
		"not a PGFT: asymmetric wiring: level-%u switch %s joins "
		"level-%u subtrees that the other level-%u switches do not "
		"join (%u level-%u subtrees are linked together, a level-%u "
		"subtree of this PGFT has %u)", l, nm(f, best, a), l - 1, l,
		found, l - 1, l, pg->m[l]);
}

/* Level-l subtrees: unions of level-(l-1) subtrees with common parents.
 * comp[] (scratch, per node) receives each level-l node's subtree. */
static ibf_status_t group_level(rec_t *r, unsigned l, uint32_t *uf,
				uint32_t *cnt, uint32_t *comp)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], u;
	unsigned mult[IBF_MAX_PORTS + 1], c, i;
	uint32_t lo = r->goff[l - 1], nlow = r->ngroups[l - 1], g, k = 0;
	char a[NAME_LEN];

	for (g = 0; g < nlow; g++)
		uf[g] = g;
	for (u = 0; u < f->nnodes; u++) {
		if (pg->level[u] != l)
			continue;
		c = neighbours(r, u, -1, nb, mult);
		for (i = 1; i < c; i++)
			uf[uf_find(uf, r->grp[nb[i]])] =
				uf_find(uf, r->grp[nb[0]]);
		comp[u] = r->grp[nb[0]]; /* resolved below */
	}
	/* number the components; cnt[] counts their lower subtrees */
	for (g = 0; g < nlow; g++)
		r->gpar[lo + g] = UINT32_MAX;
	for (g = 0; g < nlow; g++) {
		uint32_t root = uf_find(uf, g);

		if (r->gpar[lo + root] == UINT32_MAX) {
			cnt[k] = 0;
			r->gpar[lo + root] = k++;
		}
		r->gpar[lo + g] = r->gpar[lo + root];
	}
	for (g = 0; g < nlow; g++)
		r->gdig[lo + g] = cnt[r->gpar[lo + g]]++;
	for (u = 0; u < f->nnodes; u++)
		if (pg->level[u] == l)
			comp[u] = r->gpar[lo + comp[u]];
	for (g = 0; g < k; g++)
		if (cnt[g] > pg->m[l])
			return blame_merge(r, l, comp, g, cnt[g]);
	for (g = 0; g < nlow; g++) {
		uint32_t G = r->gpar[lo + g];

		if (cnt[G] == pg->m[l])
			continue;
		/* a lower subtree cut off from its siblings: name one of
		 * its nodes */
		for (u = 0; u < f->nnodes; u++)
			if (pg->level[u] == l - 1 && r->grp[u] == g)
				break;
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: %s %s: its level-%u subtree joins %u "
			"level-%u subtree%s through common parents, expected "
			"%u (m_%u)", kind(f, u), nm(f, u, a), l, cnt[G],
			l - 1, cnt[G] == 1 ? "" : "s", pg->m[l], l);
	}
	r->ngroups[l] = k;
	r->goff[l + 1] = r->goff[l] + k;
	return IBF_OK;
}

/*
 * Replica classes, top-down.  Level-l nodes share their replica digits
 * x_l..x_1 exactly when they share their top-level ancestors, so a class
 * at level l is a union of level-(l+1) classes joined by common children
 * (union-find over the classes of each node's parents).  Top nodes are one
 * class each; a level-l class must join w_{l+1} classes above it, whose
 * digit x_{l+1} is their place in it.  cls[] holds each node's class.
 */
static ibf_status_t class_level(rec_t *r, unsigned l, uint32_t *uf,
				uint32_t *cnt, uint32_t *comp)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], u;
	unsigned mult[IBF_MAX_PORTS + 1], c, i;
	uint32_t hi = pg->level_off[l + 1], nhi = r->ncls[l + 1], g, k = 0;
	char a[NAME_LEN];

	for (g = 0; g < nhi; g++)
		uf[g] = g;
	for (u = 0; u < f->nnodes; u++) {
		if (pg->level[u] != l)
			continue;
		c = neighbours(r, u, 1, nb, mult);
		for (i = 1; i < c; i++)
			uf[uf_find(uf, r->cls[nb[i]])] =
				uf_find(uf, r->cls[nb[0]]);
		comp[u] = r->cls[nb[0]];
	}
	for (g = 0; g < nhi; g++)
		r->cpar[hi + g] = UINT32_MAX;
	for (g = 0; g < nhi; g++) {
		uint32_t root = uf_find(uf, g);

		if (r->cpar[hi + root] == UINT32_MAX) {
			cnt[k] = 0;
			r->cpar[hi + root] = k++;
		}
		r->cpar[hi + g] = r->cpar[hi + root];
	}
	for (g = 0; g < nhi; g++)
		r->cdig[hi + g] = cnt[r->cpar[hi + g]]++;
	for (u = 0; u < f->nnodes; u++)
		if (pg->level[u] == l)
			r->cls[u] = r->cpar[hi + comp[u]];
	for (u = 0; u < f->nnodes; u++) {
		if (pg->level[u] != l || cnt[r->cls[u]] == pg->w[l + 1])
			continue;
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: asymmetric wiring: the level-%u "
			"ancestors of %s %s fall into %u replica classes at "
			"level %u (sets of switches with the same top-level "
			"ancestors), expected w_%u = %u", l + 1, kind(f, u),
			nm(f, u, a), cnt[r->cls[u]], l + 1, l + 1,
			pg->w[l + 1]);
	}
	if (k != pg->wprod[l])
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: asymmetric wiring: level %u splits into "
			"%u replica classes, expected %" PRIu64, l, k,
			pg->wprod[l]);
	r->ncls[l] = k;
	return IBF_OK;
}

static ibf_status_t classes(rec_t *r, uint32_t *uf, uint32_t *cnt,
			    uint32_t *comp)
{
	const ibf_pgft_t *pg = r->pg;
	uint32_t c, o, po;
	ibf_status_t st;
	unsigned l;

	/* top switches: one class each, numbered in GUID order */
	if ((st = guid_order(r, pg->h, r->cls)) != IBF_OK)
		return st;
	r->ncls[pg->h] = pg->level_count[pg->h];
	for (l = pg->h; l-- > 0;)
		if ((st = class_level(r, l, uf, cnt, comp)) != IBF_OK)
			return st;
	/* replica index W_l = x_l * wprod[l-1] + W_{l-1} of the class
	 * below */
	r->cw[0] = 0;
	for (l = 1; l <= pg->h; l++) {
		o = pg->level_off[l];
		po = pg->level_off[l - 1];
		for (c = 0; c < r->ncls[l]; c++)
			r->cw[o + c] = (uint32_t)(r->cdig[o + c] *
						  pg->wprod[l - 1]) +
				       r->cw[po + r->cpar[o + c]];
	}
	return IBF_OK;
}

static unsigned radix(const ibf_pgft_t *pg, unsigned level, unsigned i)
{
	return i > level ? pg->m[i] : pg->w[i];
}

/* Ranks, node_at and label digits from subtree and replica indices. */
static ibf_status_t number_nodes(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t u, *slot;
	unsigned l, i;
	uint32_t g;
	uint64_t x;
	char a[NAME_LEN];

	r->gidx[r->goff[pg->h]] = 0;
	for (l = pg->h; l-- > 0;)
		for (g = 0; g < r->ngroups[l]; g++)
			r->gidx[r->goff[l] + g] =
				r->gidx[r->goff[l + 1] +
					r->gpar[r->goff[l] + g]] *
				pg->m[l + 1] + r->gdig[r->goff[l] + g];
	for (u = 0; u < f->nnodes; u++)
		pg->node_at[u] = IBF_NO_ID;
	for (u = 0; u < f->nnodes; u++) {
		l = pg->level[u];
		x = r->gidx[r->goff[l] + r->grp[u]] * pg->wprod[l] +
		    r->cw[pg->level_off[l] + r->cls[u]];
		slot = &pg->node_at[pg->level_off[l] + x];
		if (x >= pg->level_count[l] || *slot != IBF_NO_ID)
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: asymmetric wiring around %s %s",
				kind(f, u), nm(f, u, a));
		*slot = u;
		pg->rank[u] = (uint32_t)x;
		for (i = 1; i <= pg->h; i++) {
			pg->label[(size_t)u * pg->h + i - 1] =
				(uint8_t)(x % radix(pg, l, i));
			x /= radix(pg, l, i);
		}
	}
	return IBF_OK;
}

static ibf_status_t label_nodes(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	uint32_t *uf = NULL, *cnt = NULL, *comp = NULL, nh = pg->level_count[0];
	size_t ng = (size_t)(pg->h + 1) * nh + 1;
	ibf_status_t st = IBF_OK;
	ibf_node_id_t u;
	unsigned l;

	r->grp = malloc((size_t)f->nnodes * sizeof(*r->grp));
	r->cls = malloc((size_t)f->nnodes * sizeof(*r->cls));
	r->cpar = malloc(((size_t)f->nnodes + 1) * sizeof(*r->cpar));
	r->cdig = malloc(((size_t)f->nnodes + 1) * sizeof(*r->cdig));
	r->cw = malloc(((size_t)f->nnodes + 1) * sizeof(*r->cw));
	r->gpar = malloc(ng * sizeof(*r->gpar));
	r->gdig = malloc(ng * sizeof(*r->gdig));
	r->gidx = malloc(ng * sizeof(*r->gidx));
	uf = malloc(((size_t)f->nnodes + 1) * sizeof(*uf));
	comp = malloc((size_t)f->nnodes * sizeof(*comp));
	cnt = malloc((size_t)(f->nnodes + nh + 1) * sizeof(*cnt));
	if (!r->grp || !r->cls || !r->cpar || !r->cdig || !r->cw ||
	    !r->gpar || !r->gdig || !r->gidx || !uf || !comp || !cnt) {
		st = ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
		goto out;
	}
	/* every host is a level-0 subtree of its own, numbered in GUID
	 * order: the subtree numbers above follow from these */
	if ((st = guid_order(r, 0, r->grp)) != IBF_OK)
		goto out;
	r->ngroups[0] = nh;
	r->goff[0] = 0;
	r->goff[1] = nh;
	for (l = 1; l <= pg->h; l++) {
		st = group_level(r, l, uf, cnt, comp);
		if (st != IBF_OK)
			goto out;
		for (u = 0; u < f->nnodes; u++)
			if (pg->level[u] == l)
				r->grp[u] = comp[u];
	}
	st = classes(r, uf, cnt, comp);
	if (st == IBF_OK)
		st = number_nodes(r);
out:
	free(uf);
	free(cnt);
	free(comp);
	return st;
}

/* ---- 5. wiring -------------------------------------------------------- */

static const char *label_str(const ibf_pgft_t *pg, ibf_node_id_t n,
			     char *buf, size_t len)
{
	size_t o;
	unsigned i;

	o = (size_t)snprintf(buf, len, "(%u;", pg->level[n]);
	for (i = pg->h; i >= 1 && o < len; i--)
		o += (size_t)snprintf(buf + o, len - o, "%s%u",
				      i == pg->h ? " " : ",",
				      ibf_pgft_digit(pg, n, i));
	if (o < len)
		snprintf(buf + o, len - o, ")");
	return buf;
}

static ibf_status_t alloc_ports(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	size_t nu = 0, nd = 0;
	ibf_node_id_t u;
	unsigned l;

	pg->up_off = malloc((size_t)f->nnodes * sizeof(*pg->up_off));
	pg->down_off = malloc((size_t)f->nnodes * sizeof(*pg->down_off));
	if (!pg->up_off || !pg->down_off)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	for (u = 0; u < f->nnodes; u++) {
		l = pg->level[u];
		pg->up_off[u] = (uint32_t)nu;
		pg->down_off[u] = (uint32_t)nd;
		if (l < pg->h)
			nu += (size_t)pg->w[l + 1] * pg->p[l + 1];
		if (l)
			nd += (size_t)pg->m[l] * pg->p[l];
	}
	if (nu > UINT32_MAX || nd > UINT32_MAX)
		return ibf_err_set(r->err, IBF_ERR_RANGE, "pgft: too large");
	pg->up_port = calloc(nu + 1, 1);
	pg->down_port = calloc(nd + 1, 1);
	if (!pg->up_port || !pg->down_port)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	return IBF_OK;
}

/* Check one up link n:q -> v against the rule and file it in both
 * tables. */
static ibf_status_t file_link(rec_t *r, ibf_node_id_t n, unsigned q,
			      ibf_node_id_t v)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	unsigned l = pg->level[n], pp = pg->p[l + 1], y, c, k;
	ibf_node_id_t want;
	uint8_t *up, *down;
	char a[NAME_LEN], b[NAME_LEN], d[NAME_LEN];
	char la[80], lb[80], ld[80];

	y = ibf_pgft_digit(pg, v, l + 1);
	c = ibf_pgft_digit(pg, n, l + 1);
	want = ibf_pgft_parent(pg, n, y);
	if (want != v)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: asymmetric wiring: %s %s %s port %u is "
			"linked to %s %s; the PGFT rule links it to %s %s",
			kind(f, n), nm(f, n, a), label_str(pg, n, la, 80), q,
			nm(f, v, b), label_str(pg, v, lb, 80), nm(f, want, d),
			label_str(pg, want, ld, 80));
	up = &pg->up_port[pg->up_off[n] + y * pp];
	down = &pg->down_port[pg->down_off[v] + c * pp];
	for (k = 0; k < pp && up[k]; k++)
		;
	if (k == pp || down[k])
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: %s %s: more than %u links to %s",
			kind(f, n), nm(f, n, a), pp, nm(f, v, b));
	up[k] = (uint8_t)q;
	down[k] = f->ports[ibf_node_port(f, n, q)->peer].num;
	return IBF_OK;
}

static ibf_status_t check_wiring(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t u, v;
	ibf_status_t st;
	size_t i, nmiss = 0, nu;
	unsigned q, slots, l;

	if ((st = alloc_ports(r)) != IBF_OK)
		return st;
	for (u = 0; u < f->nnodes; u++)
		for (q = 1; q <= f->nodes[u].nports; q++) {
			v = peer_node(f, u, q);
			if (v != IBF_NO_ID && pg->level[v] == pg->level[u] + 1 &&
			    (st = file_link(r, u, q, v)) != IBF_OK)
				return st;
		}
	nu = f->nnodes ? pg->up_off[f->nnodes - 1] : 0;
	u = f->nnodes - 1;
	if (pg->level[u] < pg->h)
		nu += (size_t)pg->w[pg->level[u] + 1] * pg->p[pg->level[u] + 1];
	for (i = 0; i < nu; i++)
		nmiss += !pg->up_port[i];
	if (!nmiss)
		return IBF_OK;
	pg->missing = malloc(nmiss * sizeof(*pg->missing));
	if (!pg->missing)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	for (l = 0; l < pg->h; l++)
		for (i = 0; i < pg->level_count[l]; i++) {
			u = pg->node_at[pg->level_off[l] + i];
			slots = pg->w[l + 1] * pg->p[l + 1];
			for (q = 0; q < slots; q++) {
				ibf_pgft_missing_t *m;

				if (pg->up_port[pg->up_off[u] + q])
					continue;
				m = &pg->missing[pg->missing_links++];
				m->child = u;
				m->parent = ibf_pgft_parent(pg, u,
							    q / pg->p[l + 1]);
				m->k = q % pg->p[l + 1];
			}
		}
	return IBF_OK;
}

/* ---- 6. reachability of a degraded PGFT -------------------------------- */

static void bs_or(uint64_t *d, const uint64_t *s, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		d[i] |= s[i];
}

static bool any_link(const uint8_t *slots, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++)
		if (slots[k])
			return true;
	return false;
}

/* R(u) for switches: endpoints reachable down (bottom-up), then up*down*
 * (top-down, in place).  Every leaf must reach its whole plane. */
static ibf_status_t check_reach(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	size_t words = (f->nendpoints + 63) / 64, sw = pg->level_off[1];
	uint64_t *R, *plane, *ru;
	uint32_t i, e;
	unsigned l, y, c, pp;
	ibf_node_id_t u, v;
	ibf_status_t st = IBF_OK;

	R = calloc((size_t)(f->nnodes - sw) * words + 1, sizeof(*R));
	plane = calloc((size_t)pg->w[1] * words + 1, sizeof(*plane));
	if (!R || !plane) {
		st = ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
		goto out;
	}
#define RS(n) (R + ((size_t)pg->rank[n] + pg->level_off[pg->level[n]] - sw) \
		   * words)
	for (e = 0; e < f->nendpoints; e++) {
		ibf_port_id_t ep = f->endpoints[e];
		ibf_node_id_t leaf = f->ports[f->ports[ep].peer].node;

		RS(leaf)[e / 64] |= 1ULL << (e % 64);
		plane[(size_t)ibf_pgft_digit(pg, leaf, 1) * words + e / 64] |=
			1ULL << (e % 64);
	}
	for (l = 2; l <= pg->h; l++)
		for (i = 0; i < pg->level_count[l]; i++) {
			u = pg->node_at[pg->level_off[l] + i];
			for (c = 0; c < pg->m[l]; c++)
				if (any_link(&pg->down_port[pg->down_off[u] +
							    c * pg->p[l]],
					     pg->p[l]))
					bs_or(RS(u), RS(ibf_pgft_child(pg, u, c)),
					      words);
		}
	for (l = pg->h - 1; l >= 1; l--)
		for (i = 0; i < pg->level_count[l]; i++) {
			u = pg->node_at[pg->level_off[l] + i];
			pp = pg->p[l + 1];
			for (y = 0; y < pg->w[l + 1]; y++)
				if (any_link(&pg->up_port[pg->up_off[u] +
							  y * pp], pp))
					bs_or(RS(u), RS(ibf_pgft_parent(pg, u, y)),
					      words);
		}
	for (e = 0; e < f->nendpoints && st == IBF_OK; e++) {
		ibf_port_id_t ep = f->endpoints[e];
		ibf_node_id_t leaf = f->ports[f->ports[ep].peer].node;
		const uint64_t *pl = plane +
			(size_t)ibf_pgft_digit(pg, leaf, 1) * words;
		char a[NAME_LEN], b[64], d[64];
		size_t w;

		ru = RS(leaf);
		for (w = 0; w < words; w++)
			if (pl[w] & ~ru[w])
				break;
		if (w == words)
			continue;
		v = (ibf_node_id_t)(w * 64 +
				    (unsigned)__builtin_ctzll(pl[w] & ~ru[w]));
		st = ibf_err_set(r->err, IBF_ERR_INVALID,
			"degraded PGFT: with %u links missing, %s (via leaf "
			"%s) cannot reach %s up*/down*",
			pg->missing_links,
			ibf_port_host_name(f, ep, b, sizeof(b)), nm(f, leaf, a),
			ibf_port_host_name(f, f->endpoints[v], d, sizeof(d)));
	}
#undef RS
out:
	free(R);
	free(plane);
	return st;
}

/* ---- host order --------------------------------------------------------- */

static ibf_status_t host_order(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	unsigned slots = pg->w[1] * pg->p[1], s, q;
	uint32_t i, n = 0;
	ibf_node_id_t u;
	ibf_port_id_t ep;

	pg->host_order = malloc(((size_t)f->nendpoints + 1) *
				sizeof(*pg->host_order));
	pg->ep_pos = malloc(((size_t)f->nendpoints + 1) * sizeof(*pg->ep_pos));
	if (!pg->host_order || !pg->ep_pos)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	for (i = 0; i < pg->level_count[0]; i++) {
		u = pg->node_at[i];
		for (s = 0; s < slots; s++) {
			q = pg->up_port[pg->up_off[u] + s];
			if (!q)
				continue;
			ep = ibf_node_port_id(f, u, q);
			if (n >= f->nendpoints ||
			    f->endpoint_index[ep] == UINT32_MAX)
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"pgft: port %u of host \"%s\" is not "
					"an endpoint", q, ibf_node_desc(f, u));
			pg->ep_pos[f->endpoint_index[ep]] = n;
			pg->host_order[n++] = ep;
		}
	}
	if (n != f->nendpoints)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"pgft: %u of %u endpoints placed", n, f->nendpoints);
	pg->nhosts = n;
	return IBF_OK;
}

/* ---- API -------------------------------------------------------------- */

void ibf_pgft_destroy(ibf_pgft_t *pg)
{
	if (!pg)
		return;
	free(pg->level);
	free(pg->rank);
	free(pg->label);
	free(pg->node_at);
	free(pg->up_port);
	free(pg->down_port);
	free(pg->up_off);
	free(pg->down_off);
	free(pg->host_order);
	free(pg->ep_pos);
	free(pg->missing);
	free(pg);
}

static ibf_status_t recognize(rec_t *r)
{
	ibf_status_t st;

	if ((st = bfs_levels(r)) != IBF_OK ||
	    (st = check_adjacent(r)) != IBF_OK ||
	    (st = infer_params(r)) != IBF_OK ||
	    (st = check_sizes(r)) != IBF_OK)
		return st;
	r->pg->label = calloc((size_t)r->f->nnodes * r->pg->h + 1, 1);
	if (!r->pg->label)
		return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
	if ((st = label_nodes(r)) != IBF_OK ||
	    (st = check_wiring(r)) != IBF_OK ||
	    (r->pg->missing_links && (st = check_reach(r)) != IBF_OK))
		return st;
	return host_order(r);
}

ibf_status_t ibf_pgft_recognize(const ibf_fabric_t *f, ibf_pgft_t **out,
				ibf_err_t *err)
{
	ibf_pgft_t *pg;
	ibf_status_t st;
	rec_t r = { 0 };

	*out = NULL;
	if (!f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "pgft: fabric is not finalized");
	if (!f->nnodes)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "not a PGFT: empty fabric");
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return ibf_err_set(err, IBF_ERR_NOMEM, "pgft: out of memory");
	pg->fabric = f;
	pg->level = malloc(f->nnodes);
	pg->rank = malloc((size_t)f->nnodes * sizeof(*pg->rank));
	pg->node_at = malloc((size_t)f->nnodes * sizeof(*pg->node_at));
	r.f = f;
	r.pg = pg;
	r.err = err;
	if (!pg->level || !pg->rank || !pg->node_at)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "pgft: out of memory");
	else
		st = recognize(&r);
	free(r.grp);
	free(r.cls);
	free(r.cpar);
	free(r.cdig);
	free(r.cw);
	free(r.gpar);
	free(r.gdig);
	free(r.gidx);
	free(r.hist);
	if (st != IBF_OK) {
		ibf_pgft_destroy(pg);
		return st;
	}
	*out = pg;
	return IBF_OK;
}

const char *ibf_pgft_format(const ibf_pgft_t *pg, char *buf, size_t len)
{
	const unsigned *v[3] = { pg->m, pg->w, pg->p };
	size_t o;
	unsigned i, j;

	o = (size_t)snprintf(buf, len, "PGFT(%u", pg->h);
	for (j = 0; j < 3 && o < len; j++)
		for (i = 1; i <= pg->h && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s%u",
					      i == 1 ? "; " : ",", v[j][i]);
	if (o < len)
		snprintf(buf + o, len - o, ")");
	return buf;
}

const char *ibf_pgft_missing_str(const ibf_pgft_t *pg, unsigned i,
				 char *buf, size_t len)
{
	const ibf_pgft_missing_t *m = &pg->missing[i];
	char a[NAME_LEN], b[NAME_LEN];
	unsigned l = pg->level[m->child];

	snprintf(buf, len, "level-%u %s %s - level-%u %s, parallel link %u "
		 "of %u", l, l ? "switch" : "host",
		 nm(pg->fabric, m->child, a), l + 1,
		 nm(pg->fabric, m->parent, b), m->k + 1, pg->p[l + 1]);
	return buf;
}

/* Rank of the node at level nl whose digits are n's, with x_j := v. */
static ibf_node_id_t relabel(const ibf_pgft_t *pg, ibf_node_id_t n,
			     unsigned nl, unsigned j, unsigned v)
{
	uint64_t idx = 0;
	unsigned i;

	for (i = pg->h; i >= 1; i--)
		idx = idx * radix(pg, nl, i) +
		      (i == j ? v : ibf_pgft_digit(pg, n, i));
	return pg->node_at[pg->level_off[nl] + idx];
}

ibf_node_id_t ibf_pgft_parent(const ibf_pgft_t *pg, ibf_node_id_t n,
			      unsigned y)
{
	unsigned l = pg->level[n];

	return relabel(pg, n, l + 1, l + 1, y);
}

ibf_node_id_t ibf_pgft_child(const ibf_pgft_t *pg, ibf_node_id_t n,
			     unsigned c)
{
	unsigned l = pg->level[n];

	return relabel(pg, n, l - 1, l, c);
}

bool ibf_pgft_is_below(const ibf_pgft_t *pg, ibf_node_id_t s,
		       ibf_node_id_t a)
{
	unsigned L = pg->level[s], j = pg->level[a], i;

	if (j > L)
		return false;
	for (i = 1; i <= pg->h; i++)
		if ((i > L || i <= j) &&
		    ibf_pgft_digit(pg, s, i) != ibf_pgft_digit(pg, a, i))
			return false;
	return true;
}

unsigned ibf_pgft_nca_level(const ibf_pgft_t *pg, ibf_node_id_t a,
			    ibf_node_id_t b)
{
	unsigned l = pg->level[a], i;

	for (i = 1; i <= l; i++)
		if (ibf_pgft_digit(pg, a, i) != ibf_pgft_digit(pg, b, i))
			return pg->h + 1;
	for (i = pg->h; i > l; i--)
		if (ibf_pgft_digit(pg, a, i) != ibf_pgft_digit(pg, b, i))
			return i;
	return l;
}

ibf_node_id_t ibf_pgft_ep_leaf(const ibf_pgft_t *pg, ibf_port_id_t ep)
{
	const ibf_fabric_t *f = pg->fabric;

	return f->ports[f->ports[ep].peer].node;
}

bool ibf_pgft_down_ok(const ibf_pgft_t *pg, ibf_node_id_t s,
		      ibf_port_id_t ep)
{
	ibf_node_id_t leaf = ibf_pgft_ep_leaf(pg, ep), n = s;
	unsigned l, c;

	if (!ibf_pgft_is_below(pg, s, leaf))
		return false;
	for (l = pg->level[s]; l >= 2; l--) {
		c = ibf_pgft_digit(pg, leaf, l);
		if (!any_link(&pg->down_port[pg->down_off[n] + c * pg->p[l]],
			      pg->p[l]))
			return false;
		n = ibf_pgft_child(pg, n, c);
	}
	return true;
}
