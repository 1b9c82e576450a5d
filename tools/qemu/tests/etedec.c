/*
 * etedec: decode a raw ETE trace buffer (as written by a TRBE) with
 * OpenCSD's C API and report packet statistics, errors and context IDs;
 * or, with -f, a frame-formatted buffer of a TMC-ETR with the ETMv4
 * trace of several trace units, per trace ID.
 *
 * usage: etedec FILE [traceid [configr [idr0 idr1 idr2 devarch]]]
 *        [-m ADDR FILE]... (memory images, enables full decode)
 *        etedec -f FILE [configr [idr0 idr1 idr2 idr8]] [-m ADDR FILE]...
 *        etedec --aux-sample FILE TID (one AUX sample, see aux_sample_main())
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <opencsd/c_api/opencsd_c_api.h>

static unsigned long npkts, nerr, natoms, naddr, nctx, nexc, nasync, nts;
static unsigned long nelem, nelem_err, ninstr_range, nincomplete;
/* I_NOT_SYNC packets, or NO_SYNC elements after the first (full decode) */
static unsigned long nnotsync;
static int verbose;
static unsigned long elem_types[64];

/*
 * Consistency check of the atoms: after a range that ends with a taken
 * direct branch, the next range must start at that branch's target.  An
 * address packet that the decoder attributes to the wrong waypoint (atoms
 * out of step with the code) shows up as a mismatch.
 */
static struct {
	unsigned long long base;
	unsigned char *data;
	long len;
} mem[8];
static int nmem;
static unsigned long long expect_addr;
static int have_expect;
static unsigned long nchecked, nmismatch;

static int read_insn(unsigned long long a, uint32_t *insn)
{
	for (int i = 0; i < nmem; i++) {
		if (a >= mem[i].base && a + 4 <= mem[i].base + mem[i].len) {
			memcpy(insn, mem[i].data + (a - mem[i].base), 4);
			return 1;
		}
	}
	return 0;
}

static long long sext(uint32_t v, int bits)
{
	return (long long)((int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits));
}

/* target of a direct branch at @a, if @insn is one */
static int direct_target(unsigned long long a, uint32_t insn,
			 unsigned long long *t)
{
	if ((insn & 0x7c000000) == 0x14000000)		/* B, BL */
		*t = a + 4 * sext(insn & 0x3ffffff, 26);
	else if ((insn & 0xff000000) == 0x54000000 ||	/* B.cond */
		 (insn & 0x7e000000) == 0x34000000)	/* CBZ, CBNZ */
		*t = a + 4 * sext((insn >> 5) & 0x7ffff, 19);
	else if ((insn & 0x7e000000) == 0x36000000)	/* TBZ, TBNZ */
		*t = a + 4 * sext((insn >> 5) & 0x3fff, 14);
	else
		return 0;
	return 1;
}
static unsigned int cids[64], ncids;

static void note_cid(unsigned int cid)
{
	for (unsigned int i = 0; i < ncids; i++)
		if (cids[i] == cid)
			return;
	if (ncids < 64)
		cids[ncids++] = cid;
}

/* The CoreSight trace IDs of trace sources: 0x01 to 0x6f */
#define CS_LAST_SOURCE_ID	0x6f
#define CS_MAX_ID		0x80

static unsigned char *read_file(const char *path, long *len)
{
	unsigned char *data;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	data = malloc(*len ? *len : 1);
	if (fread(data, 1, *len, f) != (size_t)*len) {
		perror(path);
		free(data);
		data = NULL;
	}
	fclose(f);
	return data;
}

static void pkt_in(const void *ctx, const ocsd_datapath_op_t op,
		   const ocsd_trc_index_t idx, const void *p,
		   const uint32_t size, const uint8_t *raw)
{
	const ocsd_etmv4_i_pkt *pkt = p;
	char buf[256];

	if (op != OCSD_OP_DATA)
		return;
	npkts++;
	if (verbose) {
		ocsd_pkt_str(OCSD_PROTOCOL_ETMV4I, p, buf, sizeof(buf));
		printf("%6lu: %s\n", (unsigned long)idx, buf);
	}
	switch (pkt->type) {
	case ETM4_PKT_I_NOTSYNC:
	case ETM4_PKT_I_INCOMPLETE_EOT:
	case ETM4_PKT_I_NO_ERR_TYPE:
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
		nerr++;
		ocsd_pkt_str(OCSD_PROTOCOL_ETMV4I, p, buf, sizeof(buf));
		printf("ERROR packet at %lu: %s\n", (unsigned long)idx, buf);
		break;
	case ETM4_PKT_I_ASYNC:
		nasync++;
		break;
	case ETM4_PKT_I_TIMESTAMP:
		nts++;
		break;
	case ETM4_PKT_I_EXCEPT:
		nexc++;
		break;
	case ETM4_PKT_I_ATOM_F1: case ETM4_PKT_I_ATOM_F2: case ETM4_PKT_I_ATOM_F3:
	case ETM4_PKT_I_ATOM_F4: case ETM4_PKT_I_ATOM_F5: case ETM4_PKT_I_ATOM_F6:
		natoms++;
		break;
	case ETM4_PKT_I_CTXT:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
		nctx++;
		if (pkt->context.updated_c)
			note_cid(pkt->context.ctxtID);
		if (pkt->type != ETM4_PKT_I_CTXT)
			naddr++;
		break;
	case ETM4_PKT_I_ADDR_L_64IS0:
	case ETM4_PKT_I_ADDR_L_64IS1:
		naddr++;
		break;
	default:
		break;
	}
}

static ocsd_datapath_resp_t elem_in(const void *ctx, const ocsd_trc_index_t idx,
				    const uint8_t id,
				    const ocsd_generic_trace_elem *e)
{
	char buf[512];

	nelem++;
	if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE) {
		uint32_t insn;
		unsigned long long t = 0, last = e->en_addr - 4;

		ninstr_range++;
		if (have_expect) {
			nchecked++;
			if (e->st_addr != expect_addr) {
				nmismatch++;
				if (nmismatch < 10)
					printf("MISMATCH at %lu: expected 0x%llx, range starts at 0x%llx\n",
					       (unsigned long)idx, expect_addr,
					       (unsigned long long)e->st_addr);
			}
		}
		have_expect = e->last_i_type == OCSD_INSTR_BR &&
			      e->last_instr_exec && read_insn(last, &insn) &&
			      direct_target(last, insn, &t);
		expect_addr = t;
	} else if (e->elem_type != OCSD_GEN_TRC_ELEM_TIMESTAMP &&
		   e->elem_type != OCSD_GEN_TRC_ELEM_PE_CONTEXT) {
		/* exceptions, trace on, etc. break the chain */
		have_expect = 0;
	}
	if (e->elem_type < 64)
		elem_types[e->elem_type]++;
	/* The decoder starts with one: any other is a loss of sync */
	if (e->elem_type == OCSD_GEN_TRC_ELEM_NO_SYNC && elem_types[e->elem_type] > 1)
		nnotsync++;
	if (e->elem_type == OCSD_GEN_TRC_ELEM_PE_CONTEXT &&
	    e->context.ctxt_id_valid)
		note_cid(e->context.context_id);
	if (e->elem_type == OCSD_GEN_TRC_ELEM_ADDR_NACC ||
	    e->elem_type == OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN) {
		nelem_err++;
		if (nelem_err < 20) {
			ocsd_gen_elem_str(e, buf, sizeof(buf));
			printf("ELEM problem at %lu: %s\n", (unsigned long)idx, buf);
		}
	}
	if (verbose > 1) {
		ocsd_gen_elem_str(e, buf, sizeof(buf));
		printf("E %6lu: %s\n", (unsigned long)idx, buf);
	}
	return OCSD_RESP_CONT;
}

/* Parse the library's packet printer output: "Idx:N; ID:10; I_TYPE : ..." */
static void log_str(const void *ctx, const char *s, const int len)
{
	const char *p;

	if (verbose)
		fwrite(s, 1, len, stdout);
	if (!strstr(s, "ID:")) {
		if (strstr(s, "ERROR") || strstr(s, "Error")) {
			nerr++;
			fwrite(s, 1, len, stdout);
		}
		return;
	}
	npkts++;
	if (strstr(s, "I_INCOMPLETE_EOT")) {
		/* the buffer ends in the middle of a packet: truncation */
		nincomplete++;
	} else if (strstr(s, "I_NOT_SYNC")) {
		/* OpenCSD's name: trace before an A-Sync, see main() */
		nnotsync++;
	} else if (strstr(s, "I_BAD") || strstr(s, "I_RESERVED") || strstr(s, "ERROR")) {
		nerr++;
		printf("ERROR packet: %.*s", len, s);
	} else if (strstr(s, "I_ASYNC")) {
		nasync++;
	} else if (strstr(s, "I_TIMESTAMP")) {
		nts++;
	} else if (strstr(s, "I_ATOM")) {
		natoms++;
	} else if (strstr(s, "I_EXCEPT")) {
		nexc++;
	} else if (strstr(s, "I_ADDR_CTXT")) {
		naddr++;
		nctx++;
	} else if (strstr(s, "I_CTXT")) {
		nctx++;
	} else if (strstr(s, "I_ADDR")) {
		naddr++;
	}
	p = strstr(s, "CID=");
	if (p)
		note_cid(strtoul(p + 4, NULL, 16));
}

/*
 * Frame-formatted ETMv4 trace (-f): the buffer of a TMC-ETR, 16-byte
 * formatter frames as perf's AUX buffer holds them (frame aligned, with
 * the 4 x FSYNC barrier packets the tmc-etr driver inserts where trace
 * was lost).  An ETMv4 packet decoder for every trace ID; what each one
 * saw is reported on a line of its own:
 *   etedec: id 0x10: B bytes, U unsynced, P packets, E errors, ...,
 *           context IDs: ...
 * then the union of the context IDs, and the total number of errors.
 * With memory images (-m), an instruction level decode too, with the
 * direct branch target check of elem_in() per trace ID.
 */
struct fmt_id_stats {
	unsigned long pkts, errs, asyncs, ts, atoms, addrs, ctxs, excs;
	unsigned int cids[64], ncids;
	/* instruction level */
	unsigned long ranges, checked, mismatches, nacc;
	unsigned long long expect_addr;
	int have_expect;
};

static struct fmt_id_stats fmt_stats[CS_MAX_ID];
static unsigned long fmt_lib_errs;

static void fmt_note_cid(struct fmt_id_stats *st, unsigned int cid)
{
	for (unsigned int i = 0; i < st->ncids; i++)
		if (st->cids[i] == cid)
			return;
	if (st->ncids < 64)
		st->cids[st->ncids++] = cid;
	note_cid(cid);
}

static ocsd_datapath_resp_t fmt_pkt_in(const void *ctx,
				       const ocsd_datapath_op_t op,
				       const ocsd_trc_index_t idx,
				       const void *p)
{
	struct fmt_id_stats *st = (struct fmt_id_stats *)ctx;
	const ocsd_etmv4_i_pkt *pkt = p;
	char buf[256];

	if (op != OCSD_OP_DATA)
		return OCSD_RESP_CONT;
	st->pkts++;
	switch (pkt->type) {
	case ETM4_PKT_I_NOTSYNC:
	case ETM4_PKT_I_INCOMPLETE_EOT:
		/* before the first A-Sync, or after lost trace; see stats */
		break;
	case ETM4_PKT_I_NO_ERR_TYPE:
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
		st->errs++;
		ocsd_pkt_str(OCSD_PROTOCOL_ETMV4I, p, buf, sizeof(buf));
		printf("ERROR packet at %lu: %s\n", (unsigned long)idx, buf);
		break;
	case ETM4_PKT_I_ASYNC:
		st->asyncs++;
		break;
	case ETM4_PKT_I_TIMESTAMP:
		st->ts++;
		break;
	case ETM4_PKT_I_EXCEPT:
		st->excs++;
		break;
	case ETM4_PKT_I_ATOM_F1: case ETM4_PKT_I_ATOM_F2:
	case ETM4_PKT_I_ATOM_F3: case ETM4_PKT_I_ATOM_F4:
	case ETM4_PKT_I_ATOM_F5: case ETM4_PKT_I_ATOM_F6:
		st->atoms++;
		break;
	case ETM4_PKT_I_CTXT:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
		st->ctxs++;
		if (pkt->context.updated_c)
			fmt_note_cid(st, pkt->context.ctxtID);
		if (pkt->type != ETM4_PKT_I_CTXT)
			st->addrs++;
		break;
	case ETM4_PKT_I_ADDR_L_64IS0:
	case ETM4_PKT_I_ADDR_L_64IS1:
		st->addrs++;
		break;
	default:
		break;
	}
	return OCSD_RESP_CONT;
}

static void fmt_pkt_mon(const void *ctx, const ocsd_datapath_op_t op,
			const ocsd_trc_index_t idx, const void *p,
			const uint32_t size, const uint8_t *data)
{
	fmt_pkt_in(ctx, op, idx, p);
}

/* Instruction level: the direct branch check of elem_in(), per trace ID */
static ocsd_datapath_resp_t fmt_elem_in(const void *ctx,
					const ocsd_trc_index_t idx,
					const uint8_t id,
					const ocsd_generic_trace_elem *e)
{
	struct fmt_id_stats *st = &fmt_stats[id & (CS_MAX_ID - 1)];
	unsigned long long t = 0, last = e->en_addr - 4;
	uint32_t insn;
	char buf[512];

	switch (e->elem_type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		st->ranges++;
		if (st->have_expect) {
			st->checked++;
			if (e->st_addr != st->expect_addr && st->mismatches++ < 10)
				printf("MISMATCH id 0x%02x at %lu: expected 0x%llx, range starts at 0x%llx\n",
				       id, (unsigned long)idx, st->expect_addr,
				       (unsigned long long)e->st_addr);
		}
		st->have_expect = e->last_i_type == OCSD_INSTR_BR &&
			e->last_instr_exec && read_insn(last, &insn) &&
			direct_target(last, insn, &t);
		st->expect_addr = t;
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_NACC:
	case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN:
		if (st->nacc++ < 10) {
			ocsd_gen_elem_str(e, buf, sizeof(buf));
			printf("ELEM problem id 0x%02x at %lu: %s\n", id,
			       (unsigned long)idx, buf);
		}
		st->have_expect = 0;
		break;
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
	case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
		break;
	default:
		/* exceptions, trace on, etc. break the chain */
		st->have_expect = 0;
		break;
	}
	return OCSD_RESP_CONT;
}

/* A memory image at @addr for the instruction level decode */
static int fmt_add_image(dcd_tree_handle_t t, const char *addr,
			 const char *path)
{
	unsigned long long a = strtoull(addr, NULL, 0);

	if (nmem == 8 || !(mem[nmem].data = read_file(path, &mem[nmem].len)) ||
	    ocsd_dt_add_binfile_mem_acc(t, a, OCSD_MEM_SPACE_ANY, path) != OCSD_OK) {
		fprintf(stderr, "cannot map %s\n", path);
		return -1;
	}
	mem[nmem++].base = a;
	return 0;
}

/* Library messages: deformatter and decoder errors */
static void fmt_log_str(const void *ctx, const char *s, const int len)
{
	fmt_lib_errs++;
	printf("ERROR: %.*s", len, s);
}

static void fmt_report_id(dcd_tree_handle_t t, int id)
{
	struct fmt_id_stats *st = &fmt_stats[id];
	ocsd_decode_stats_t *ds = NULL;
	unsigned long bytes = 0, unsynced = 0;

	if (ocsd_dt_get_decode_stats(t, id, &ds) == OCSD_OK && ds) {
		bytes = ds->channel_total;
		unsynced = ds->channel_unsynced;
		st->errs += ds->bad_header_errs + ds->bad_sequence_errs;
	}
	if (!bytes && !st->pkts)
		return;
	printf("etedec: id 0x%02x: %lu bytes, %lu unsynced, %lu packets, "
	       "%lu errors, %lu A-Sync, %lu timestamps, %lu atoms, "
	       "%lu addresses, %lu contexts, %lu exceptions, context IDs:",
	       id, bytes, unsynced, st->pkts, st->errs, st->asyncs, st->ts,
	       st->atoms, st->addrs, st->ctxs, st->excs);
	for (unsigned int i = 0; i < st->ncids; i++)
		printf(" %u", st->cids[i]);
	printf("\n");
	if (nmem)
		printf("etedec: id 0x%02x: %lu instruction ranges, direct branch "
		       "targets: %lu checked, %lu mismatches; %lu memory/address "
		       "problems\n", id, st->ranges, st->checked, st->mismatches,
		       st->nacc);
}

static int decode_formatted(int argc, char **argv)
{
	ocsd_etmv4_cfg cfg = {
		.reg_idr0 = 0x28000c01,
		.reg_idr1 = 0x4100f440,		/* ETMv4.4 */
		.reg_idr2 = 0x00000088,
		.reg_configr = 0x00000841,
		.arch_ver = ARCH_AA64,
		.core_prof = profile_CortexA,
	};
	int nargs = 0, full = 0;
	unsigned long errs;
	dcd_tree_handle_t t;
	unsigned char *data;
	uint32_t used;
	long len;

	/* FILE and the configuration registers come before the -m options */
	while (nargs < argc && strcmp(argv[nargs], "-m"))
		nargs++;
	full = nargs < argc;
	if (nargs < 1) {
		fprintf(stderr, "usage: etedec -f FILE [configr [idr0 idr1 idr2 idr8]] [-m ADDR FILE]...\n");
		return 1;
	}
	if (nargs > 1)
		cfg.reg_configr = strtoul(argv[1], NULL, 0);
	if (nargs > 5) {
		cfg.reg_idr0 = strtoul(argv[2], NULL, 0);
		cfg.reg_idr1 = strtoul(argv[3], NULL, 0);
		cfg.reg_idr2 = strtoul(argv[4], NULL, 0);
		cfg.reg_idr8 = strtoul(argv[5], NULL, 0);
	}
	data = read_file(argv[0], &len);
	if (!data)
		return 1;
	if (len % OCSD_DFRMTR_FRAME_SIZE)
		printf("etedec: %ld bytes: not whole 16-byte frames\n", len);

	ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 1);
	ocsd_def_errlog_config_output(C_API_MSGLOGOUT_FLG_NONE, NULL);
	t = ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED,
				 OCSD_DFRMTR_FRAME_MEM_ALIGN |
				 OCSD_DFRMTR_RESET_ON_4X_FSYNC);
	ocsd_def_errlog_set_strprint_cb(t, NULL, fmt_log_str);
	for (int id = 1; id <= CS_LAST_SOURCE_ID; id++) {
		unsigned char csid;

		cfg.reg_traceidr = id;
		if (ocsd_dt_create_decoder(t, OCSD_BUILTIN_DCD_ETMV4I,
					   full ? OCSD_CREATE_FLG_FULL_DECODER :
					   OCSD_CREATE_FLG_PACKET_PROC, &cfg,
					   &csid) != OCSD_OK ||
		    ocsd_dt_attach_packet_callback(t, csid,
						   full ? OCSD_C_API_CB_PKT_MON :
						   OCSD_C_API_CB_PKT_SINK,
						   full ? (void *)fmt_pkt_mon :
						   (void *)fmt_pkt_in,
						   &fmt_stats[csid]) != OCSD_OK) {
			fprintf(stderr, "cannot create the ETMv4 decoder for 0x%x\n", id);
			return 1;
		}
	}
	for (int i = nargs; i + 2 < argc + 1 && !strcmp(argv[i], "-m"); i += 3)
		if (fmt_add_image(t, argv[i + 1], argv[i + 2]))
			return 1;
	if (full)
		ocsd_dt_set_gen_elem_outfn(t, fmt_elem_in, NULL);
	if (OCSD_DATA_RESP_IS_FATAL(ocsd_dt_process_data(t, OCSD_OP_DATA, 0, len,
							 data, &used)) ||
	    used != (uint32_t)len) {
		printf("process_data stopped at %u of %ld\n", used, len);
		fmt_lib_errs++;
	}
	ocsd_dt_process_data(t, OCSD_OP_EOT, 0, 0, NULL, &used);

	printf("etedec: formatted: %ld bytes\n", len);
	errs = fmt_lib_errs;
	for (int id = 1; id <= CS_LAST_SOURCE_ID; id++) {
		fmt_report_id(t, id);
		errs += fmt_stats[id].errs + fmt_stats[id].mismatches +
			fmt_stats[id].nacc;
	}
	printf("etedec: context IDs:");
	for (unsigned int i = 0; i < ncids; i++)
		printf(" %u", cids[i]);
	printf("\n");
	printf("etedec: %lu errors\n", errs);
	ocsd_destroy_dcd_tree(t);
	free(data);
	return errs ? 2 : 0;
}

/*
 * The ETE of the QEMU model, as the driver programs it: its ID registers
 * (TRCIDR0/1/2, TRCDEVARCH), TRCCONFIGR with context IDs and timestamps,
 * and the trace ID the TRBE path uses.
 */
static const ocsd_ete_cfg model_ete_cfg = {
	.reg_idr0 = 0x28000c01,
	.reg_idr1 = 0x0000fff0,
	.reg_idr2 = 0x00000088,
	.reg_idr8 = 0,
	.reg_devarch = 0x47705a13,
	.reg_configr = 0x00000841,
	.reg_traceidr = 0x10,
	.arch_ver = ARCH_AA64,
	.core_prof = profile_CortexA,
};

/*
 * AUX sample mode: check one PERF_SAMPLE_AUX payload taken from a per-CPU
 * sink (TRBE) by the sampling thread TID. A sample is zero padding, then
 * the latest trace, which starts anywhere in the stream: decode it from
 * its first A-Sync. Prints one line of counts and exits with 0 if the
 * sample is good, 2 if it is bad (zeros after the front, packet errors,
 * a context ID other than TID, timestamps that go back, a last packet that
 * is cut), 3 if it cannot be checked (no A-Sync, or no context ID after
 * it) and 1 on usage or I/O errors. The line gives the first and last
 * timestamp decoded, for the caller to order the samples of a thread.
 *
 * A second line shows how the sample ends, for the check of
 * ci/check-aux-samples.py --latest: its last AUX_SAMPLE_TAIL addresses and
 * atoms, in order, "aux-sample: last: A:0x... T3:EEN X:0x...", where A is
 * an address (a branch target, or where trace starts), X the return
 * address of an Exception packet, and Tn the n atoms between two of them
 * (the last 32 shown).
 */
#define AUX_SAMPLE_TAIL		16
#define AUX_SAMPLE_ATOMS	32

struct aux_sample_check {
	unsigned int tid;
	unsigned long packets, errors, asyncs, overflows, incomplete;
	unsigned long contexts, foreign;
	unsigned int foreign_cid;
	/* The tail: a ring of the last addresses and runs of atoms */
	char tail[AUX_SAMPLE_TAIL][AUX_SAMPLE_ATOMS + 24];
	unsigned long ntail, atoms;
	char atom_run[AUX_SAMPLE_ATOMS + 1];
	int exception;
	/* timestamp packets, their first and last value, and steps back */
	unsigned long timestamps, ts_back;
	unsigned long long ts_first, ts_last;
};

static void aux_sample_tail_add(struct aux_sample_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->tail[c->ntail++ % AUX_SAMPLE_TAIL], sizeof(c->tail[0]), fmt, ap);
	va_end(ap);
}

/* The atoms ("; EEN") of an atom packet, then addresses, into the tail */
static void aux_sample_tail_packet(struct aux_sample_check *c, const char *s)
{
	const char *p;
	size_t len;

	if (strstr(s, "I_ATOM")) {
		for (p = strrchr(s, ';'); p && *p; p++) {
			if (*p != 'E' && *p != 'N')
				continue;
			c->atoms++;
			len = strlen(c->atom_run);
			if (len == AUX_SAMPLE_ATOMS)
				memmove(c->atom_run, c->atom_run + 1, --len);
			c->atom_run[len] = *p;
		}
		return;
	}
	if (strstr(s, "I_EXCEPT")) {
		c->exception = 1;
		return;
	}
	p = strstr(s, "Addr=0x");
	if (!p)
		return;
	if (c->atoms)
		aux_sample_tail_add(c, "T%lu:%s", c->atoms, c->atom_run);
	memset(c->atom_run, 0, sizeof(c->atom_run));
	c->atoms = 0;
	aux_sample_tail_add(c, "%c:0x%llx", c->exception ? 'X' : 'A', strtoull(p + 7, NULL, 16));
	c->exception = 0;
}

static void aux_sample_print_tail(struct aux_sample_check *c)
{
	unsigned long i = c->ntail > AUX_SAMPLE_TAIL ? c->ntail - AUX_SAMPLE_TAIL : 0;

	if (c->atoms)
		aux_sample_tail_add(c, "T%lu:%s", c->atoms, c->atom_run);
	printf("aux-sample: last:");
	for (; i < c->ntail; i++)
		printf(" %s", c->tail[i % AUX_SAMPLE_TAIL]);
	printf("\n");
}

/*
 * The packet printer's output, one packet per call: "Idx:N; ID:10;
 * I_TYPE : ...; CID=0x...". The C API of OpenCSD 1.3 has no typed packet
 * callback for ETE, so the printed packets are parsed, like log_str().
 */
static void aux_sample_log_str(const void *ctx, const char *s, const int len)
{
	struct aux_sample_check *c = (struct aux_sample_check *)ctx;
	const char *p;

	if (!strstr(s, "ID:")) {
		/* not a packet: the error logger */
		if (strstr(s, "ERROR") || strstr(s, "Error")) {
			c->errors++;
			printf("aux-sample: %.*s", len, s);
		}
		return;
	}
	c->packets++;
	if (strstr(s, "I_INCOMPLETE_EOT")) {
		/* the sample ends inside a packet */
		c->incomplete++;
	} else if (strstr(s, "I_BAD") || strstr(s, "I_RESERVED") ||
		   strstr(s, "I_NOT_SYNC") || strstr(s, "I_NO_ERR_TYPE")) {
		c->errors++;
		printf("aux-sample: error packet: %.*s", len, s);
	} else if (strstr(s, "I_ASYNC")) {
		c->asyncs++;
	} else if (strstr(s, "I_OVERFLOW")) {
		c->overflows++;
	} else if (strstr(s, "I_TIMESTAMP") && (p = strstr(s, "Updated val = 0x"))) {
		unsigned long long ts = strtoull(p + 16, NULL, 16);

		if (!c->timestamps++)
			c->ts_first = ts;
		else if (ts < c->ts_last)
			c->ts_back++;
		c->ts_last = ts;
	}
	aux_sample_tail_packet(c, s);
	p = strstr(s, "CID=");
	if (p) {
		unsigned int cid = strtoul(p + 4, NULL, 16);

		c->contexts++;
		if (cid != c->tid) {
			c->foreign++;
			c->foreign_cid = cid;
		}
	}
}

/* Offset of the first A-Sync (11 zero bytes, then 0x80) at or after @from */
static long aux_sample_find_async(const unsigned char *d, long len, long from)
{
	long zeros = 0;

	for (long i = from; i < len; i++) {
		if (d[i] == 0x80 && zeros >= 11)
			return i - 11;
		zeros = d[i] ? 0 : zeros + 1;
	}
	return -1;
}

/*
 * Runs of 11 or more zeros after the front that do not end in an A-Sync:
 * padding in the middle or at the end of a sample, or trace that was
 * never written. Only an A-Sync has that many zeros in a row.
 */
static unsigned long aux_sample_zero_runs(const unsigned char *d, long len, long from)
{
	unsigned long runs = 0;
	long zeros = 0;

	for (long i = from; i < len; i++) {
		if (!d[i]) {
			zeros++;
			continue;
		}
		if (zeros >= 11 && d[i] != 0x80)
			runs++;
		zeros = 0;
	}
	/* The latest trace ends the sample: no zeros at the end either */
	return runs + (zeros >= 11);
}

static int aux_sample_decode(struct aux_sample_check *c, const unsigned char *d, long len)
{
	ocsd_ete_cfg cfg = model_ete_cfg;
	dcd_tree_handle_t t;
	unsigned char csid;
	uint32_t used;
	ocsd_datapath_resp_t resp;

	t = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!t || ocsd_dt_create_decoder(t, OCSD_BUILTIN_DCD_ETE, OCSD_CREATE_FLG_PACKET_PROC,
					 &cfg, &csid) != OCSD_OK ||
	    ocsd_def_errlog_set_strprint_cb(t, c, aux_sample_log_str) != OCSD_OK ||
	    ocsd_dt_set_pkt_protocol_printer(t, csid, 0) != OCSD_OK) {
		fprintf(stderr, "aux-sample: cannot create the ETE packet decoder\n");
		return -1;
	}
	resp = ocsd_dt_process_data(t, OCSD_OP_DATA, 0, len, d, &used);
	if (OCSD_DATA_RESP_IS_FATAL(resp) || used != (uint32_t)len) {
		printf("aux-sample: decoding stopped at %u of %ld bytes\n", used, len);
		c->errors++;
	}
	ocsd_dt_process_data(t, OCSD_OP_EOT, 0, 0, NULL, &used);
	ocsd_destroy_dcd_tree(t);
	return 0;
}

static int aux_sample_main(const char *file, unsigned int tid)
{
	struct aux_sample_check c = { .tid = tid };
	unsigned char *d;
	long len, zeros, async, runs;
	FILE *f = fopen(file, "rb");

	if (!f) {
		perror(file);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	d = malloc(len ? len : 1);
	if (fread(d, 1, len, f) != (size_t)len) {
		perror(file);
		return 1;
	}
	fclose(f);

	ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 1);
	ocsd_def_errlog_config_output(C_API_MSGLOGOUT_FLG_NONE, NULL);
	for (zeros = 0; zeros < len && !d[zeros]; zeros++)
		;
	/* The padding can run into the zeros of an A-Sync that starts the trace */
	async = aux_sample_find_async(d, len, zeros > 11 ? zeros - 11 : 0);
	runs = aux_sample_zero_runs(d, len, zeros);
	if (async >= 0 && aux_sample_decode(&c, d + async, len - async))
		return 1;

	printf("aux-sample: %ld bytes, %ld zeros at the front, %ld more zero runs, "
	       "first A-Sync at %ld, %lu packets, %lu errors, %lu A-Sync, %lu overflows, "
	       "%lu context IDs, %lu not %u, %lu timestamps from %llu to %llu, "
	       "%lu back%s\n",
	       len, zeros, runs, async, c.packets, c.errors, c.asyncs, c.overflows,
	       c.contexts, c.foreign, tid, c.timestamps, c.ts_first, c.ts_last, c.ts_back,
	       c.incomplete ? ", ends inside a packet" : "");
	if (c.foreign)
		printf("aux-sample: context ID %u in the sample of thread %u\n", c.foreign_cid, tid);
	if (async >= 0)
		aux_sample_print_tail(&c);
	free(d);
	if (c.ts_back)
		printf("aux-sample: timestamps go back %lu times\n", c.ts_back);
	/*
	 * The sink stops after the trace unit has emitted its last packet
	 * whole, so a sample that ends inside a packet lacks its latest
	 * bytes.
	 */
	if (c.incomplete)
		printf("aux-sample: the sample ends inside a packet\n");
	if (runs || c.errors || c.foreign || c.ts_back || c.incomplete)
		return 2;
	if (async < 0 || !c.contexts)
		return 3;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--aux-sample"))
		return aux_sample_main(argv[2], strtoul(argv[3], NULL, 0));
	if (argc > 1 && !strcmp(argv[1], "-f"))
		return decode_formatted(argc - 2, argv + 2);

	ocsd_ete_cfg cfg = model_ete_cfg;
	const char *file = NULL;
	int nnum = 0, full = 0;
	uint32_t nums[7];
	dcd_tree_handle_t t;
	unsigned char *data;
	unsigned char csid;
	uint32_t used;
	long len, first_async;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose++;
		} else if (!strcmp(argv[i], "-m") && i + 2 < argc) {
			i += 2;
			full = 1;
		} else if (!file) {
			file = argv[i];
		} else if (nnum < 7) {
			nums[nnum++] = strtoul(argv[i], NULL, 0);
		}
	}
	if (!file) {
		fprintf(stderr, "usage: etedec FILE [traceid [configr [idr0 idr1 idr2 devarch]]] [-m ADDR FILE]...\n");
		return 1;
	}
	if (nnum > 0)
		cfg.reg_traceidr = nums[0];
	if (nnum > 1)
		cfg.reg_configr = nums[1];
	if (nnum > 5) {
		cfg.reg_idr0 = nums[2];
		cfg.reg_idr1 = nums[3];
		cfg.reg_idr2 = nums[4];
		cfg.reg_devarch = nums[5];
	}

	f = fopen(file, "rb");
	if (!f) {
		perror(file);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	data = malloc(len ? len : 1);
	if (fread(data, 1, len, f) != (size_t)len)
		return 1;
	fclose(f);

	ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 1);
	ocsd_def_errlog_config_output(C_API_MSGLOGOUT_FLG_NONE, NULL);
	t = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (ocsd_dt_create_decoder(t, OCSD_BUILTIN_DCD_ETE,
				   full ? OCSD_CREATE_FLG_FULL_DECODER
					: OCSD_CREATE_FLG_PACKET_PROC,
				   &cfg, &csid) != OCSD_OK) {
		fprintf(stderr, "cannot create ETE decoder\n");
		return 1;
	}
	ocsd_def_errlog_set_strprint_cb(t, NULL, log_str);
	if (!full && ocsd_dt_set_pkt_protocol_printer(t, csid, 0) != OCSD_OK)
		fprintf(stderr, "cannot attach packet printer (csid %u)\n", csid);
	if (full) {
		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "-m") && i + 2 < argc) {
				unsigned long long a = strtoull(argv[i + 1], NULL, 0);

				FILE *mf = fopen(argv[i + 2], "rb");

				if (ocsd_dt_add_binfile_mem_acc(t, a, OCSD_MEM_SPACE_ANY,
								argv[i + 2]) != OCSD_OK)
					fprintf(stderr, "cannot map %s\n", argv[i + 2]);
				if (mf && nmem < 8) {
					fseek(mf, 0, SEEK_END);
					mem[nmem].len = ftell(mf);
					rewind(mf);
					mem[nmem].data = malloc(mem[nmem].len);
					if (fread(mem[nmem].data, 1, mem[nmem].len, mf) ==
					    (size_t)mem[nmem].len) {
						mem[nmem].base = a;
						nmem++;
					}
				}
				if (mf)
					fclose(mf);
				i += 2;
			}
		}
		ocsd_dt_set_gen_elem_outfn(t, elem_in, NULL);
	}
	if (OCSD_DATA_RESP_IS_FATAL(ocsd_dt_process_data(t, OCSD_OP_DATA, 0, len, data, &used)) ||
	    used != (uint32_t)len) {
		printf("process_data stopped at %u of %ld\n", used, len);
		nerr++;
	}
	ocsd_dt_process_data(t, OCSD_OP_EOT, 0, 0, NULL, &used);

	if (!full)
		printf("etedec: %ld bytes, %lu packets, %lu errors, %lu A-Sync, "
	       "%lu timestamps, %lu atoms, %lu addresses, %lu contexts, "
	       "%lu exceptions\n", len, npkts, nerr, nasync, nts, natoms,
	       naddr, nctx, nexc);
	if (full)
	{
		printf("etedec: full decode: %lu elements, %lu instruction ranges, %lu memory/address problems\n",
		       nelem, ninstr_range, nelem_err);
		printf("etedec: direct-branch target check: %lu checked, %lu mismatches\n",
		       nchecked, nmismatch);
		printf("etedec: element types:");
		for (int i = 0; i < 64; i++)
			if (elem_types[i])
				printf(" %d:%lu", i, elem_types[i]);
		printf("\n");
	}
	if (nincomplete)
		printf("etedec: buffer ends inside a packet (truncated)\n");
	/*
	 * Trace before the first A-Sync, or where the decoder lost sync, is
	 * unsynchronized: ci/check-trace.py accepts it only in a buffer that
	 * perf flagged TRUNCATED
	 */
	first_async = aux_sample_find_async(data, len, 0);
	printf("etedec: unsynchronized: %ld bytes before the first A-Sync, %lu times out of sync\n",
	       first_async < 0 ? len : first_async, nnotsync);
	printf("etedec: context IDs:");
	for (unsigned int i = 0; i < ncids; i++)
		printf(" %u", cids[i]);
	printf("\n");
	ocsd_destroy_dcd_tree(t);
	return (nerr || nmismatch || nelem_err) ? 2 : 0;
}
