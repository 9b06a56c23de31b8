/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Graphviz output: one graph node per IB node (label = NodeDescription,
 * switches as boxes), one edge per link with the port numbers at its ends
 * and the rate as its label.  Write only.
 */
#include <ibflow/topo_io.h>

#include <inttypes.h>

#include "formats/topo_internal.h"

void ibf_topo_dot_quoted(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fputc('\\', fp);
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, fp);
	}
	fputc('"', fp);
}

ibf_status_t ibf_topo_write_dot(const ibf_fabric_t *f, FILE *fp,
				ibf_err_t *err)
{
	ibf_node_id_t n;
	ibf_port_id_t p;

	(void)err;
	fprintf(fp, "// written by ibflow: %u nodes, %u switches, %u "
		"endpoints\ngraph ibfabric {\n\tnode [shape=ellipse];\n",
		f->nnodes, f->nswitches, f->nendpoints);
	for (n = 0; n < f->nnodes; n++) {
		fprintf(fp, "\tn%u [label=", n);
		ibf_topo_dot_quoted(fp, ibf_node_desc(f, n));
		fprintf(fp, ", tooltip=\"0x%016" PRIx64 "\"%s];\n",
			ibf_node(f, n)->guid,
			ibf_node_is_switch(f, n) ? ", shape=box" : "");
	}
	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *a = ibf_port(f, p), *b;

		if (a->peer == IBF_NO_ID || a->peer < p)
			continue; /* each link once */
		b = ibf_port(f, a->peer);
		fprintf(fp, "\tn%u -- n%u [taillabel=\"%u\", headlabel=\"%u\"",
			a->node, b->node, a->num, b->num);
		if (a->width || a->speed)
			fprintf(fp, ", label=\"%ux%s\"", a->width,
				ibf_speed_name((ibf_speed_t)a->speed));
		fprintf(fp, "];\n");
	}
	fprintf(fp, "}\n");
	return IBF_OK;
}
