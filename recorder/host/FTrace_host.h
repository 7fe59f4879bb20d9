/*
 * FTrace_host.h - host-only additions of the recorder's host port
 * (FTrace_host.c) and the HTF dump (htf_dump.c).  POSIX; never part of a
 * target build.
 */
#ifndef FTRACE_HOST_H
#define FTRACE_HOST_H

#include "FTrace.h"
#include "FTrace_htf.h"

/** The S.Ha.R.K. port: the sender binds it and sends to it. */
#define TKREC_UDP_PORT 20000u

/**
 * Ports and pacing of the UDP sender, before FTrace_OSD_init_udp():
 * local_port 0 binds an ephemeral port; pace_us > 0 sleeps after each
 * datagram (the original sleeps 5000 us).  Defaults: 20000, 20000, 0.
 */
void tkrec_host_udp_config(unsigned local_port, unsigned target_port,
			   unsigned pace_us);
/**
 * Tests: `fn(id)` is called at each test point TKREC_POINT_* of the
 * recorder (FTrace_port.h) as an interrupt arriving there would run:
 * at once outside the critical section, or when the outermost section
 * ends if the point is inside one.  NULL (the default) removes it.
 */
typedef void (*tkrec_host_point_fn)(unsigned id);
void tkrec_host_set_point_hook(tkrec_host_point_fn fn);

/** Close the UDP socket (FTrace_send_chunk then fails until re-init). */
void tkrec_host_udp_close(void);

/**
 * The host disk writer, a sink for tkrec_set_sink(fn, dir): chunk i of the
 * send order goes to "<dir>/<i><name>" (name from FTrace_init_disk_writer,
 * dir NULL = "."), as the original's 0trace.dat, 1trace.dat; each file is
 * written under a ".tmp" name and renamed when complete (next chunk or
 * tkrec_host_disk_close()).  A chunk with no record writes no file.
 */
void tkrec_host_disk_sink(void *ctx, const char *name, unsigned index,
			  const void *bytes, size_t n);
/** Finish the last file; 0, or -1 if any write, close or rename failed. */
int tkrec_host_disk_close(void);

/** What the HTF header says about the trace (NULL fields are left out). */
typedef struct tkrec_htf_meta {
	const char *target_system;  /**< #TargetSystem */
	const char *description;    /**< #Description */
	const char *timescale;      /**< #TimeScale: ps, ns, us, ms, s (NULL: ns) */
	uint32_t numerator;         /**< #TimeScaleNumerator (0: 1) */
	uint32_t denominator;       /**< #TimeScaleDenominator (0: 1) */
} tkrec_htf_meta;

/**
 * Write the HTF binary mode's records of every initialised core as an
 * `.htf` file at `path` (through `path`.tmp and a rename: no partial file).
 * Times are whole (the time-base records add the high part; they are not
 * written); the file's lengths are the widest of the cores' and of the
 * whole times; records are widened, never cut.  Events the target dropped
 * are counted in the header (#LostEvents N, all cores and reasons), which
 * tracekit's HTF reader reports.  Refused (-1, one line in err) if a record
 * names an entity that is not registered or an event its type does not
 * have, if a meta value has a line break or the time scale is none of
 * ps, ns, us, ms, s, or on an I/O error.  Returns the number of records written.
 */
long tkrec_htf_dump(const char *path, const tkrec_htf_meta *meta,
		    char *err, size_t errlen);

#endif
