/* shards.c: chunks, their spread over the ranks, shard files and the
 * merge (see shards.h). Shard files are native-endian: they serve a
 * restart on the same cluster, not an exchange. */
#include "shards.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAGIC "EESHARD1"
#define RECORD_MAGIC 0x43524545u /* "EERC" */

typedef struct {
    char magic[8];
    uint64_t key, nchunks, nrows, row_bytes;
} FileHeader;

typedef struct {
    uint32_t magic, chunk;
    uint64_t n;
    int64_t forward, backward;
    double seconds;
} RecordHeader;

void ee_key_add(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) *h = (*h ^ b[i]) * 0x100000001b3ULL;
}

void ee_key_str(uint64_t *h, const char *s)
{
    ee_key_add(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

void ee_shards_plan(EeShards *s, const EePar *par, const double *cost, long nrows, long rows)
{
    memset(s, 0, sizeof *s);
    s->par = par;
    s->fd = -1;
    s->nrows = nrows;
    if (rows < 1) rows = 1;
    s->nchunks = (int)((nrows + rows - 1) / rows);
    s->chunks = calloc((size_t)s->nchunks + 1, sizeof *s->chunks);
    s->done = calloc((size_t)s->nchunks + 1, 1);
    if (!s->chunks || !s->done) {
        fprintf(stderr, "ee: out of memory planning %d chunks\n", s->nchunks);
        exit(6);
    }
    for (int c = 0; c < s->nchunks; c++) {
        EeChunk *k = &s->chunks[c];
        k->first = (long)c * rows;
        k->n = nrows - k->first < rows ? nrows - k->first : rows;
        for (long i = 0; i < k->n; i++) k->cost += cost[k->first + i];
    }
}

void ee_shards_column(EeShards *s, const char *name, int is_int, long width)
{
    if (s->ncols < EE_MAX_COLUMNS) s->cols[s->ncols++] = (EeColumn){name, is_int, width};
}

static uint64_t row_bytes(const EeShards *s)
{
    uint64_t b = 0;
    for (int k = 0; k < s->ncols; k++) b += 4 * (uint64_t)s->cols[k].width;
    return b;
}

static void header_of(const EeShards *s, FileHeader *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, FILE_MAGIC, 8);
    h->key = s->key;
    h->nchunks = (uint64_t)s->nchunks;
    h->nrows = (uint64_t)s->nrows;
    h->row_bytes = row_bytes(s);
}

/* All n bytes read into buf (writing 0) or written from it (writing 1),
 * through short transfers and interrupted calls; 0 on an error or end of
 * file. */
static int transfer_full(int fd, char *p, size_t n, int writing)
{
    while (n > 0) {
        ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        p += r;
        n -= (size_t)r;
    }
    return 1;
}

static int read_full(int fd, void *buf, size_t n) { return transfer_full(fd, buf, n, 0); }

/* write(2) does not change buf: the cast only serves the shared loop */
static int write_full(int fd, const void *buf, size_t n) { return transfer_full(fd, (char *)buf, n, 1); }

/* Walks the records of an open shard file after its header. For each
 * complete record with a good checksum calls fn (payload in buf); returns
 * the offset where the valid records end. */
typedef void (*RecordFn)(EeShards *s, const RecordHeader *r, const char *payload, void *ctx);

static off_t walk(EeShards *s, int fd, RecordFn fn, void *ctx)
{
    off_t end = (off_t)sizeof(FileHeader);
    uint64_t rb = row_bytes(s);
    char *buf = NULL;
    size_t cap = 0;
    for (;;) {
        RecordHeader r;
        if (!read_full(fd, &r, sizeof r)) break;
        if (r.magic != RECORD_MAGIC || r.chunk >= (uint64_t)s->nchunks || r.n != (uint64_t)s->chunks[r.chunk].n)
            break;
        size_t need = (size_t)(r.n * rb);
        if (need + 8 > cap) {
            char *g = realloc(buf, need + 8);
            if (!g) break;
            buf = g;
            cap = need + 8;
        }
        uint64_t sum;
        if (!read_full(fd, buf, need) || !read_full(fd, &sum, sizeof sum)) break;
        uint64_t h = 0xcbf29ce484222325ULL;
        ee_key_add(&h, &r, sizeof r);
        ee_key_add(&h, buf, need);
        if (h != sum) break;
        if (fn) fn(s, &r, buf, ctx);
        end += (off_t)(sizeof r + need + sizeof sum);
    }
    free(buf);
    return end;
}

static void mark_done(EeShards *s, const RecordHeader *r, const char *payload, void *ctx)
{
    (void)payload;
    (void)ctx;
    s->done[r->chunk] = 1;
}

/* Opens a shard file and checks its header: 1 = ours (positioned after
 * the header), 0 = no complete header yet, -1 = another job's. */
static int check_header(const EeShards *s, int fd)
{
    FileHeader want, got;
    header_of(s, &want);
    if (lseek(fd, 0, SEEK_SET) != 0 || !read_full(fd, &got, sizeof got)) return 0;
    return memcmp(&want, &got, sizeof want) ? -1 : 1;
}

static int is_shard_name(const char *n)
{
    size_t len = strlen(n);
    return !strncmp(n, "shard-", 6) && len > 10 && !strcmp(n + len - 4, ".bin");
}

/* Opens the folder's entry `name` for reading when it is a shard file
 * (*fd; -1 when it is not one), its path written to path. */
static EeStatus open_shard(const EeShards *s, const char *name, char *path, size_t n, int *fd)
{
    *fd = -1;
    if (!is_shard_name(name)) return EE_OK;
    snprintf(path, n, "%s/%s", s->dir, name);
    *fd = open(path, O_RDONLY);
    if (*fd < 0) return ee_fail(EE_ERR_IO, "cannot read shard '%s': %s", path, strerror(errno));
    return EE_OK;
}

/* Calls fn on each shard file of the folder, open for reading (fd, at
 * its start; closed after), until one fails. */
typedef EeStatus (*ShardFn)(EeShards *s, const char *path, int fd, void *ctx);
static EeStatus each_shard(EeShards *s, ShardFn fn, void *ctx)
{
    DIR *d = opendir(s->dir);
    if (!d) return ee_fail(EE_ERR_IO, "cannot read the shard folder '%s': %s", s->dir, strerror(errno));
    EeStatus st = EE_OK;
    struct dirent *e;
    while (!st && (e = readdir(d))) {
        char path[8192];
        int fd;
        if ((st = open_shard(s, e->d_name, path, sizeof path, &fd))) break;
        if (fd < 0) continue;
        st = fn(s, path, fd, ctx);
        close(fd);
    }
    closedir(d);
    return st;
}

/* scan's step: the chunks one shard file holds, or its refusal when another
 * job wrote it. */
static EeStatus scan_file(EeShards *s, const char *path, int fd, void *ctx)
{
    (void)ctx;
    int h = check_header(s, fd);
    if (h < 0)
        return ee_fail(EE_ERR_INPUT, "shard '%s' was written by another job (other models, rows or options): "
                       "remove the folder '%s' to start afresh, or give another --out or --shards", path, s->dir);
    if (h > 0) walk(s, fd, mark_done, NULL);
    return EE_OK;
}

/* Rank 0: marks the chunks that some shard file holds. */
static EeStatus scan(EeShards *s)
{
    return each_shard(s, scan_file, NULL);
}

/* This rank's own shard file, ready to append to. */
static EeStatus open_mine(EeShards *s)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/shard-%04d.bin", s->dir, s->par->rank);
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) return ee_fail(EE_ERR_IO, "cannot open shard '%s': %s", path, strerror(errno));
    int h = check_header(s, fd);
    off_t end = 0;
    if (h > 0) end = walk(s, fd, NULL, NULL);
    else if (h < 0) {
        close(fd);
        return ee_fail(EE_ERR_INPUT, "shard '%s' was written by another job", path);
    }
    /* drop a torn last record (or start the file) */
    if (ftruncate(fd, end) || lseek(fd, end, SEEK_SET) != end) {
        close(fd);
        return ee_fail(EE_ERR_IO, "cannot prepare shard '%s': %s", path, strerror(errno));
    }
    if (h == 0) {
        FileHeader fh;
        header_of(s, &fh);
        if (!write_full(fd, &fh, sizeof fh) || fdatasync(fd)) {
            close(fd);
            return ee_fail(EE_ERR_IO, "cannot write shard '%s': %s", path, strerror(errno));
        }
    }
    s->fd = fd;
    return EE_OK;
}

static EeStatus make_dir(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) && errno != EEXIST)
            return ee_fail(EE_ERR_IO, "cannot create the folder '%s': %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) && errno != EEXIST)
        return ee_fail(EE_ERR_IO, "cannot create the shard folder '%s': %s", buf, strerror(errno));
    return EE_OK;
}

EeStatus ee_shards_open(EeShards *s, const char *dir, uint64_t key)
{
    const EePar *p = s->par;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    /* the plan is part of the key: records of other chunks never match */
    s->key = key;
    ee_key_add(&s->key, &s->nchunks, sizeof s->nchunks);
    for (int c = 0; c < s->nchunks; c++) ee_key_add(&s->key, &s->chunks[c].n, sizeof s->chunks[c].n);
    for (int k = 0; k < s->ncols; k++) {
        ee_key_str(&s->key, s->cols[k].name);
        ee_key_add(&s->key, &s->cols[k].width, sizeof s->cols[k].width);
    }
    EeStatus st = EE_OK;
    if (p->rank == 0) {
        st = make_dir(dir);
        if (!st) st = scan(s);
    }
    if ((st = ee_par_agree(p, st))) return st;
    ee_par_bcast(p, s->done, (size_t)s->nchunks, 0);
    for (int c = 0; c < s->nchunks; c++) s->ndone_before += s->done[c];
    return ee_par_agree(p, open_mine(s));
}

int ee_shards_mine(const EeShards *s, int *out)
{
    /* the chunks still to do, in order, cut into size contiguous runs of
     * about equal cost: a chunk goes to the rank whose share holds the
     * middle of its cost */
    double total = 0;
    for (int c = 0; c < s->nchunks; c++)
        if (!s->done[c]) total += s->chunks[c].cost;
    int K = s->par->size, n = 0, todo = 0;
    double before = 0;
    for (int c = 0; c < s->nchunks; c++) {
        if (s->done[c]) continue;
        double mid = before + s->chunks[c].cost / 2;
        before += s->chunks[c].cost;
        int r = total > 0 ? (int)(mid / total * K) : (int)((long)todo * K / s->nchunks);
        if (r >= K) r = K - 1;
        todo++;
        if (r == s->par->rank) out[n++] = c;
    }
    return n;
}

/* Test hook (tests/cli/check.sh): EE_FAULT_KILL=RANK:N makes that rank kill
 * itself with SIGKILL after writing N records, like a node that dies. */
static void fault_hook(const EeShards *s)
{
    const char *f = getenv("EE_FAULT_KILL");
    int rank, n;
    if (f && sscanf(f, "%d:%d", &rank, &n) == 2 && rank == s->par->rank && n == s->written) raise(SIGKILL);
}

EeStatus ee_shards_append(EeShards *s, int c, void *const *coldata, long forward, long backward, double seconds)
{
    const EeChunk *k = &s->chunks[c];
    size_t need = (size_t)((uint64_t)k->n * row_bytes(s));
    size_t total = sizeof(RecordHeader) + need + 8;
    char *buf = malloc(total);
    if (!buf) return ee_fail(EE_ERR_NOMEM, "out of memory writing a shard record");
    RecordHeader r = {RECORD_MAGIC, (uint32_t)c, (uint64_t)k->n, forward, backward, seconds};
    memcpy(buf, &r, sizeof r);
    size_t off = sizeof r;
    for (int j = 0; j < s->ncols; j++) {
        size_t b = 4 * (size_t)s->cols[j].width * (size_t)k->n;
        memcpy(buf + off, coldata[j], b);
        off += b;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    ee_key_add(&h, buf, off);
    memcpy(buf + off, &h, 8);
    /* one write, then to disk: a record is complete or dropped at restart */
    int ok = write_full(s->fd, buf, total) && !fdatasync(s->fd);
    free(buf);
    if (!ok) return ee_fail(EE_ERR_IO, "cannot write to the shard folder '%s': %s", s->dir, strerror(errno));
    s->written++;
    fault_hook(s);
    return EE_OK;
}

static void gather(EeShards *s, const RecordHeader *r, const char *payload, void *ctx)
{
    uint8_t *seen = ctx;
    if (seen[r->chunk]) return; /* the same chunk twice: the same numbers */
    seen[r->chunk] = 1;
    const EeChunk *k = &s->chunks[r->chunk];
    size_t off = 0;
    for (int j = 0; j < s->ncols; j++) {
        size_t b = 4 * (size_t)s->cols[j].width * (size_t)k->n;
        memcpy((char *)s->data[j] + 4 * (size_t)s->cols[j].width * (size_t)k->first, payload + off, b);
        off += b;
    }
    s->forward += r->forward;
    s->backward += r->backward;
    s->seconds += r->seconds;
}

/* The merge's step: the records of one shard file of this job. */
static EeStatus gather_file(EeShards *s, const char *path, int fd, void *seen)
{
    (void)path;
    if (check_header(s, fd) > 0) walk(s, fd, gather, seen);
    return EE_OK;
}

EeStatus ee_shards_merge(EeShards *s)
{
    for (int j = 0; j < s->ncols; j++) {
        s->data[j] = calloc((size_t)s->nrows * (size_t)s->cols[j].width + 1, 4);
        if (!s->data[j]) return ee_fail(EE_ERR_NOMEM, "out of memory merging %ld rows of %s", s->nrows, s->cols[j].name);
    }
    uint8_t *seen = calloc((size_t)s->nchunks + 1, 1);
    if (!seen) return ee_fail(EE_ERR_NOMEM, "out of memory merging the shards");
    s->forward = s->backward = 0;
    s->seconds = 0;
    EeStatus st = each_shard(s, gather_file, seen);
    for (int c = 0; !st && c < s->nchunks; c++)
        if (!seen[c])
            st = ee_fail(EE_ERR_IO, "the shard folder '%s' has no record of rows %ld..%ld (chunk %d of %d): were "
                         "the shards on a folder that every rank sees?", s->dir, s->chunks[c].first + 1,
                         s->chunks[c].first + s->chunks[c].n, c + 1, s->nchunks);
    free(seen);
    return st;
}

void ee_shards_remove(EeShards *s)
{
    DIR *d = opendir(s->dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_shard_name(e->d_name)) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(s->dir); /* stays when it holds other files */
}

void ee_shards_free(EeShards *s)
{
    if (s->fd >= 0) close(s->fd);
    for (int j = 0; j < s->ncols; j++) free(s->data[j]);
    free(s->chunks);
    free(s->done);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}
