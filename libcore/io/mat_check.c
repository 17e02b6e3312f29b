/* mat_check.c: a structural check of a MAT 5 file before matio reads it.
 *
 * matio trusts the sizes written in a file: a truncated or damaged file
 * makes it read past the data it has (leaving parts of its buffers
 * uninitialised, or walking structs that were only partly read). This
 * walk visits every element of the file (inflating compressed ones) and
 * accepts the file only when each element lies inside its parent, each
 * array's data holds every element its dimensions announce, and the
 * classes are ones the loader uses. It reads nothing into a model. */
#include "../ee_mat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* MAT 5 data types and array classes (the format's numbering) */
enum { MI_INT8 = 1, MI_UINT8, MI_INT16, MI_UINT16, MI_INT32, MI_UINT32, MI_SINGLE, MI_DOUBLE = 9,
       MI_INT64 = 12, MI_UINT64, MI_MATRIX, MI_COMPRESSED, MI_UTF8, MI_UTF16, MI_UTF32 };
enum { MX_CELL = 1, MX_STRUCT, MX_OBJECT, MX_CHAR, MX_SPARSE, MX_DOUBLE, MX_SINGLE, MX_INT8, MX_UINT8,
       MX_INT16, MX_UINT16, MX_INT32, MX_UINT32, MX_INT64, MX_UINT64 };

#define MAX_DEPTH 16              /* nesting of cells and structs */
#define MAX_INFLATED (1u << 30)   /* bytes one compressed variable may inflate to */

typedef struct {
    const uint8_t *p;
    size_t n;
    const char **why;
} Buf;

static uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* One tag at *pos: its type, the size of its data and where the data is;
 * *pos moves past the (padded) element. 0 when it does not fit. */
static int tag(const Buf *b, size_t *pos, uint32_t *type, uint32_t *bytes, const uint8_t **data, int pad)
{
    if (*pos > b->n || b->n - *pos < 8) return 0;
    const uint8_t *t = b->p + *pos;
    uint32_t w = u32(t);
    if (w >> 16) { /* small data element: 2-byte size, 2-byte type, data in the next 4 */
        *bytes = w >> 16;
        *type = w & 0xffff;
        if (*bytes > 4) return 0;
        *data = t + 4;
        *pos += 8;
        return 1;
    }
    *type = w;
    *bytes = u32(t + 4);
    size_t end = *pos + 8 + (size_t)*bytes;
    if (*bytes > b->n - *pos - 8) return 0;
    *data = t + 8;
    if (pad) end = (end + 7) / 8 * 8;
    *pos = end < b->n ? end : b->n;
    return 1;
}

static int type_size(uint32_t t)
{
    switch (t) {
    case MI_INT8: case MI_UINT8: case MI_UTF8: return 1;
    case MI_INT16: case MI_UINT16: case MI_UTF16: return 2;
    case MI_INT32: case MI_UINT32: case MI_SINGLE: case MI_UTF32: return 4;
    case MI_DOUBLE: case MI_INT64: case MI_UINT64: return 8;
    default: return 0;
    }
}

static int fail(const Buf *b, const char *why)
{
    if (!*b->why) *b->why = why;
    return 0;
}

/* A numeric data element of at least n values. */
static int numeric(const Buf *b, size_t *pos, size_t n, int is_char)
{
    uint32_t type, bytes;
    const uint8_t *data;
    if (!tag(b, pos, &type, &bytes, &data, 1)) return fail(b, "a data element passes the end of its array");
    int es = type_size(type);
    if (!es) return fail(b, "a data element has an unknown type");
    if (bytes % es) return fail(b, "a data element's size is not a multiple of its type");
    /* UTF-8 text may take more bytes than characters, never fewer */
    size_t have = is_char && type == MI_UTF8 ? bytes : bytes / es;
    if (have < n) return fail(b, "an array holds fewer values than its dimensions announce");
    return 1;
}

static int matrix(const Buf *b, int depth);

/* The elements of a cell or struct: n arrays, each a miMATRIX tag. */
static int children(const Buf *b, size_t *pos, size_t n, int depth)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t type, bytes;
        const uint8_t *data;
        if (!tag(b, pos, &type, &bytes, &data, 1) || type != MI_MATRIX)
            return fail(b, "an element of a cell or struct is missing or not an array");
        Buf sub = {data, bytes, b->why};
        if (bytes && !matrix(&sub, depth + 1)) return 0;
    }
    return 1;
}

/* The contents of one miMATRIX element (flags, dims, name, data). */
static int matrix(const Buf *b, int depth)
{
    if (depth > MAX_DEPTH) return fail(b, "cells or structs nested too deep");
    size_t pos = 0;
    uint32_t type, bytes;
    const uint8_t *data;
    if (!tag(b, &pos, &type, &bytes, &data, 1) || type != MI_UINT32 || bytes != 8)
        return fail(b, "an array has no valid flags");
    uint32_t flags = u32(data);
    int cls = flags & 0xff, complex = (flags & 0x800) != 0;
    if (!tag(b, &pos, &type, &bytes, &data, 1) || type != MI_INT32 || bytes < 4 || bytes % 4)
        return fail(b, "an array has no valid dimensions");
    size_t n = 1;
    for (uint32_t k = 0; k < bytes / 4; k++) {
        uint32_t dim = u32(data + 4 * k);
        if (dim > 0x7fffffff) return fail(b, "an array has a negative dimension");
        if (dim && n > SIZE_MAX / 16 / dim) return fail(b, "an array's dimensions overflow");
        n *= dim;
    }
    if (!tag(b, &pos, &type, &bytes, &data, 1) || (type != MI_INT8 && type != MI_UINT8 && type != MI_UTF8))
        return fail(b, "an array has no valid name");
    switch (cls) {
    case MX_CHAR: case MX_DOUBLE: case MX_SINGLE: case MX_INT8: case MX_UINT8: case MX_INT16:
    case MX_UINT16: case MX_INT32: case MX_UINT32: case MX_INT64: case MX_UINT64:
        if (!numeric(b, &pos, n, cls == MX_CHAR)) return 0;
        return !complex || numeric(b, &pos, n, 0);
    case MX_CELL:
        return children(b, &pos, n, depth);
    case MX_STRUCT: {
        if (!tag(b, &pos, &type, &bytes, &data, 1) || type != MI_INT32 || bytes != 4)
            return fail(b, "a struct has no field name length");
        uint32_t len = u32(data);
        if (!tag(b, &pos, &type, &bytes, &data, 1) || (type != MI_INT8 && type != MI_UINT8) || !len || len > 4096 ||
            bytes % len)
            return fail(b, "a struct has no valid field names");
        size_t nf = bytes / len;
        for (size_t f = 0; f < nf; f++)
            if (!memchr(data + f * len, 0, len)) return fail(b, "a struct field name is not terminated");
        if (nf && n > SIZE_MAX / nf) return fail(b, "a struct's size overflows");
        return children(b, &pos, n * nf, depth);
    }
    default:
        return fail(b, "an array of a class the loader does not read (sparse, object, function)");
    }
}

/* Inflates a compressed element into one buffer (NULL on failure). */
static uint8_t *inflate_all(const uint8_t *src, size_t n, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return NULL;
    size_t cap = n * 4 + 1024, len = 0;
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)n;
    int st = Z_OK;
    while (out && st == Z_OK) {
        if (len == cap) {
            if (cap >= MAX_INFLATED) break;
            cap = cap * 2 < MAX_INFLATED ? cap * 2 : MAX_INFLATED;
            uint8_t *bigger = realloc(out, cap);
            if (!bigger) break;
            out = bigger;
        }
        z.next_out = out + len;
        z.avail_out = (uInt)(cap - len);
        st = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
    }
    inflateEnd(&z);
    if (st != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    *out_n = len;
    return out;
}

EeStatus ee_mat5_check(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return ee_fail(EE_ERR_IO, "cannot open '%s'", path);
    uint8_t *file = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            uint8_t *bigger = realloc(file, cap);
            if (!bigger) { free(file); fclose(fp); return ee_fail(EE_ERR_NOMEM, "out of memory reading '%s'", path); }
            file = bigger;
        }
        size_t got = fread(file + n, 1, cap - n, fp);
        n += got;
        if (!got) break;
    }
    fclose(fp);
    const char *why = NULL;
    if (n < 128 || !(file[124] == 0x00 && file[125] == 0x01 && file[126] == 'I' && file[127] == 'M')) {
        free(file);
        return ee_fail(EE_ERR_IO, "'%s' is not a MAT file (little-endian MAT 5, as Octave's save -v6 or -v7 "
                       "writes)", path);
    }
    Buf b = {file, n, &why};
    size_t pos = 128;
    while (!why && pos < n) {
        uint32_t type, bytes;
        const uint8_t *data;
        size_t at = pos;
        /* compressed variables follow each other without padding */
        if (!tag(&b, &pos, &type, &bytes, &data, 0)) { why = "the file ends inside a variable"; break; }
        if (type == MI_MATRIX) {
            pos = (at + 8 + (size_t)bytes + 7) / 8 * 8;
            Buf sub = {data, bytes, &why};
            if (bytes) matrix(&sub, 0);
        } else if (type == MI_COMPRESSED) {
            size_t m;
            uint8_t *plain = inflate_all(data, bytes, &m);
            if (!plain) { why = "a compressed variable does not inflate"; break; }
            Buf z = {plain, m, &why};
            size_t zp = 0;
            uint32_t zt, zb;
            const uint8_t *zd;
            if (!tag(&z, &zp, &zt, &zb, &zd, 1) || zt != MI_MATRIX) why = "a compressed variable is not an array";
            else if (zb) {
                Buf sub = {zd, zb, &why};
                matrix(&sub, 0);
            }
            free(plain);
        } else {
            why = "a top-level element is not a variable";
        }
    }
    free(file);
    if (why) return ee_fail(EE_ERR_IO, "'%s' is damaged: %s", path, why);
    return EE_OK;
}
