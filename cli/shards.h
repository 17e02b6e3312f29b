/* shards.h: the rows of a row-parallel command (predict, ig, sv, explain)
 * cut into chunks, spread over the ranks, checkpointed and merged.
 *
 * Chunks are fixed runs of rows of the selection, the same for any
 * number of ranks, so a rank computes exactly what a single process
 * computes for those rows (the libcore calls are the same). Each rank
 * takes a contiguous run of the chunks still to do, balanced by their
 * cost, and appends one record per finished chunk to its own shard file
 * in the shard folder. A restarted run (with any number of ranks) reads
 * every shard file there and computes only the chunks that have no
 * record. Rank 0 merges the records into whole arrays.
 *
 * A shard file starts with the job's key (a hash of the command, the
 * models, the rows and every option that changes a number), so records
 * of another job are never mixed in. Records end with a checksum; a torn
 * last record (a rank killed while writing) is dropped and recomputed. */
#ifndef EE_CLI_SHARDS_H
#define EE_CLI_SHARDS_H

#include "par.h"
#include "ee.h"

#include <stdint.h>

/* A per-row output: `width` 4-byte values per row, float or int32. */
typedef struct {
    const char *name;
    int is_int;
    long width;
} EeColumn;

#define EE_MAX_COLUMNS 8

typedef struct {
    long first, n;   /* rows [first, first + n) of the selection */
    double cost;
} EeChunk;

typedef struct {
    const EePar *par;
    long nrows;
    int nchunks;
    EeChunk *chunks;
    int ncols;
    EeColumn cols[EE_MAX_COLUMNS];
    uint64_t key;
    char dir[4096];
    uint8_t *done;           /* per chunk: a record exists (after open) */
    int ndone_before;        /* chunks found done when the run started */
    int fd;                  /* this rank's shard file */
    int written;             /* records this rank wrote */
    /* the merged results (rank 0, after ee_shards_merge): nrows x width */
    void *data[EE_MAX_COLUMNS];
    long forward, backward;
    double seconds;
} EeShards;

/* FNV-1a, for the job key. */
void ee_key_add(uint64_t *h, const void *p, size_t n);
void ee_key_str(uint64_t *h, const char *s);

/* Cuts nrows rows with the given costs into chunks of `rows` rows. */
void ee_shards_plan(EeShards *s, const EePar *par, const double *cost, long nrows, long rows);
void ee_shards_column(EeShards *s, const char *name, int is_int, long width);
/* Opens the shard folder (created when missing): rank 0 reads the records
 * already there and tells every rank which chunks are done; each rank
 * opens its own shard file to append to. Collective: every rank calls it
 * and gets the same status. */
EeStatus ee_shards_open(EeShards *s, const char *dir, uint64_t key);
/* The chunks of this rank (indices, in order) among those not done. */
int ee_shards_mine(const EeShards *s, int *chunks);
/* Appends the record of chunk c: column k holds n x width values. */
EeStatus ee_shards_append(EeShards *s, int c, void *const *coldata, long forward, long backward,
                          double seconds);
/* Rank 0: reads every record into data[] and the totals; every chunk
 * must have one. */
EeStatus ee_shards_merge(EeShards *s);
/* Rank 0, after the result is written: removes the shard files. */
void ee_shards_remove(EeShards *s);
void ee_shards_free(EeShards *s);

#endif
