## corrupt_make (DIR, SEED): the damaged files of tests/cli/corrupt.sh.
##
## DIR holds the intact files, each saved by Octave as -v6 and -v7
## (ROLE_v6.mat, ROLE_v7.mat, ROLE one of clf_transformer, clf_cnn,
## clf_mlp, expl, data). From each this writes, into DIR/cases/, copies
## with bytes flipped (anywhere, and in the 8-byte tags of -v6 elements),
## truncated at many offsets, with a top-level element or an 8-byte-aligned
## run of bytes duplicated; and, from the -v7 files, variables of the
## wrong class or missing. Everything is drawn from rand ('twister', SEED).
##
## Octave's own reader is the referee: each case is loaded here and
## compared with the intact file. DIR/manifest.txt gets one line per case,
##   CASE ROLE BASE WHAT EXPECT [RESAVED]
## EXPECT: "same" (Octave reads the intact contents: ee must refuse the
## file or give the intact file's output), "refused" (Octave refuses it:
## ee must refuse it too, or give the intact output), "differs" (Octave
## reads other contents, saved again cleanly as RESAVED: ee must refuse
## the file or give the output of RESAVED), "error" (a wrong variable or
## class: ee must refuse it; the last field names the commands that read
## the variable, "all" or a comma-separated list).
function corrupt_make (dir, seed)
  rand ('twister', seed);
  mkdir (fullfile (dir, 'cases'));
  fid = fopen (fullfile (dir, 'manifest.txt'), 'w');
  roles = {'clf_transformer', 'clf_cnn', 'clf_mlp', 'expl', 'data'};
  ncase = 0;
  for r = 1:numel (roles)
    for v = {'v6', 'v7'}
      base = sprintf ('%s_%s.mat', roles{r}, v{1});
      bytes = read_bytes (fullfile (dir, base));
      intact = load (fullfile (dir, base));
      n = numel (bytes);
      muts = {};
      ## flips anywhere (header text included), and in element tags
      for k = 1:10
        at = randi (n); b = bytes; b(at) = bitxor (b(at), uint8 (randi (255)));
        muts{end+1} = {sprintf('flip@%d', at - 1), b};
      end
      tags = tag_offsets (bytes, strcmp (v{1}, 'v6'));
      for k = 1:6
        at = tags(randi (numel (tags))) + randi (8) - 1;
        b = bytes; b(at + 1) = bitxor (b(at + 1), uint8 (2 ^ randi ([0 7])));
        muts{end+1} = {sprintf('tagflip@%d', at), b};
      end
      ## truncations: inside the header, then spread over the file, and the last bytes
      cuts = unique ([randi(128, 1, 2) - 1, round(linspace (128, n - 9, 8)) + randi(7, 1, 8), n - randi(8, 1, 2)]);
      for c = cuts
        muts{end+1} = {sprintf('cut@%d', c), bytes(1:c)};
      end
      ## a top-level element twice; a run of 8-aligned bytes twice (sizes not fixed)
      top = tag_offsets (bytes, false, true);
      k = randi (numel (top)); a = top(k); e = [top(2:end), n]; e = e(k);
      muts{end+1} = {sprintf('dupvar@%d', a), [bytes(1:e), bytes(a+1:e), bytes(e+1:end)]};
      for k = 1:2
        a = 128 + 8 * randi (floor ((n - 136) / 8)); len = 8 * randi (min (4, floor ((n - a) / 8)));
        muts{end+1} = {sprintf('dup%d@%d', len, a), [bytes(1:a+len), bytes(a+1:end)]};
      end
      for m = 1:numel (muts)
        ncase++;
        name = sprintf ('c%04d.mat', ncase);
        write_bytes (fullfile (dir, 'cases', name), muts{m}{2});
        [expect, resaved] = referee (dir, name, intact);
        fprintf (fid, '%s %s %s %s %s %s\n', name, roles{r}, base, muts{m}{1}, expect, resaved);
      end
    end
  end
  ## wrong variables and classes (valid files that must be refused)
  d = load (fullfile (dir, 'data_v7.mat'));
  c = load (fullfile (dir, 'clf_mlp_v7.mat'));
  t = load (fullfile (dir, 'clf_transformer_v7.mat'));
  x = load (fullfile (dir, 'expl_v7.mat'));
  wrong = {};
  wrong{end+1} = {'data', 'tokens-char', setfield(d, 'tokens', char(d.tokens + 64))};
  wrong{end+1} = {'data', 'tokens-complex', setfield(d, 'tokens', complex(double(d.tokens), 1))};
  wrong{end+1} = {'data', 'tokens-cell', setfield(d, 'tokens', num2cell(d.tokens))};
  wrong{end+1} = {'data', 'tokens-struct', setfield(d, 'tokens', struct('a', d.tokens))};
  wrong{end+1} = {'data', 'tokens-nan', setfield(d, 'tokens', [double(d.tokens(:,1)), NaN(rows(d.tokens), 1), double(d.tokens(:,3:end))])};
  wrong{end+1} = {'data', 'tokens-negative', setfield(d, 'tokens', -d.tokens)};
  wrong{end+1} = {'data', 'tokens-3d', setfield(d, 'tokens', repmat(d.tokens, [1 1 2]))};
  wrong{end+1} = {'data', 'tokens-empty', setfield(d, 'tokens', zeros(0, columns(d.tokens), 'int32'))};
  wrong{end+1} = {'data', 'tokens-missing', rmfield(d, 'tokens')};
  wrong{end+1} = {'data', 'feats-char', setfield(d, 'feats', repmat('a', size(d.feats)))};
  wrong{end+1} = {'data', 'feats-inf', setfield(d, 'feats', Inf(size(d.feats)))};
  wrong{end+1} = {'data', 'labels-char', setfield(d, 'labels', char(d.labels + 64))};
  wrong{end+1} = {'data', 'split-double', setfield(d, 'split', 1)};
  wrong{end+1} = {'data', 'split-rows-out', setfield(d, 'split', struct('train', 1000, 'valid', 1, 'test', -1))};
  wrong{end+1} = {'clf_mlp', 'model-double', struct('model', 1)};
  wrong{end+1} = {'clf_mlp', 'model-cell', struct('model', {{c.model}})};
  wrong{end+1} = {'clf_mlp', 'model-two', struct('model', c.model, 'other', c.model)};
  wrong{end+1} = {'clf_mlp', 'model-array', struct('model', [c.model, c.model])};
  wrong{end+1} = {'clf_mlp', 'kind-number', struct('model', setfield(c.model, 'kind', 3))};
  wrong{end+1} = {'clf_mlp', 'kind-other', struct('model', setfield(c.model, 'kind', 'rnn'))};
  wrong{end+1} = {'clf_mlp', 'field-missing', struct('model', rmfield(c.model, 'fc'))};
  W = c.model.fc(1).W;   # the first layer's weights
  wrong{end+1} = {'clf_mlp', 'weights-int8', struct('model', set_w(c.model, int8(W)))};
  wrong{end+1} = {'clf_mlp', 'weights-complex', struct('model', set_w(c.model, complex(W, 1)))};
  wrong{end+1} = {'clf_mlp', 'weights-sparse', struct('model', set_w(c.model, sparse(double(W))))};
  wrong{end+1} = {'clf_mlp', 'weights-short', struct('model', set_w(c.model, W(1:end-1)))};
  wrong{end+1} = {'clf_mlp', 'weights-cell', struct('model', set_w(c.model, {W}))};
  wrong{end+1} = {'clf_mlp', 'weights-inf', struct('model', set_w(c.model, Inf(size(W), 'single')))};
  wrong{end+1} = {'clf_transformer', 'encoder-cell', struct('model', setfield(t.model, 'encoder', {t.model.encoder}))};
  wrong{end+1} = {'clf_transformer', 'encoder-empty', struct('model', setfield(t.model, 'encoder', t.model.encoder([])))};
  wrong{end+1} = {'expl', 'expl-classifier', struct('model', c.model)};
  wrong{end+1} = {'expl', 'expl-weights-missing', struct('model', rmfield(x.model, 'E_tok'))};
  wrong{end+1} = {'expl', 'expl-fingerprint', struct('model', setfield(x.model, 'explains', setfield(x.model.explains, 'classifier', '0123456789abcdef')))};
  for k = 1:numel (wrong)
    for v = {'-v6', '-v7'}
      ncase++;
      name = sprintf ('c%04d.mat', ncase);
      s = wrong{k}{3};
      save (v{1}, fullfile (dir, 'cases', name), '-struct', 's');
      ## the commands that read the damaged variable (the others may succeed)
      readers = 'all';
      if (strncmp (wrong{k}{2}, 'tokens', 6)) readers = 'ig,sv,explain,train-explainer'; end
      if (strncmp (wrong{k}{2}, 'feats', 5)) readers = 'predict,train'; end
      if (strncmp (wrong{k}{2}, 'labels', 6)) readers = 'train'; end
      if (strncmp (wrong{k}{2}, 'split', 5)) readers = 'predict,explain,train,train-explainer'; end
      fprintf (fid, '%s %s %s_%s.mat %s error %s\n', name, wrong{k}{1}, wrong{k}{1}, v{1}(2:end), wrong{k}{2}, readers);
    end
  end
  fclose (fid);
  printf ('%d cases written\n', ncase);
endfunction

## What Octave's load makes of a case, against the intact contents.
function [expect, resaved] = referee (dir, name, intact)
  resaved = '-';
  try
    s = load (fullfile (dir, 'cases', name));
  catch
    expect = 'refused';
    return;
  end
  if (same_contents (s, intact))
    expect = 'same';
  else
    expect = 'differs';
    resaved = ['r' name];
    try
      save ('-v6', fullfile (dir, 'cases', resaved), '-struct', 's');
    catch   # what Octave read cannot be saved again (a nameless or odd variable): no valid contents
      unlink (fullfile (dir, 'cases', resaved));
      expect = 'refused'; resaved = '-';
    end
  endif
endfunction

## isequaln, which in Octave 7 fails on structs of other fields
function t = same_contents (a, b)
  try
    t = isequaln (a, b);
  catch
    t = false;
  end
endfunction

## Offsets (0-based) of element tags: every one in a -v6 file (a walk
## into arrays, cells and structs), or only the top-level ones.
function at = tag_offsets (b, inner, toponly)
  if (nargin < 3) toponly = false; end
  at = [];
  pos = 128;
  while (pos + 8 <= numel (b))
    [type, len] = tag (b, pos);
    at(end+1) = pos;
    if (type == 14 && inner && ! toponly)
      at = [at, inner_tags(b, pos + 8, pos + 8 + len)];
    end
    if (type == 15) pos += 8 + len; else pos += 8 + 8 * ceil (len / 8); end
  end
endfunction

function at = inner_tags (b, pos, stop)
  at = [];
  while (pos + 8 <= min (stop, numel (b)))
    [type, len, small] = tag (b, pos);
    at(end+1) = pos;
    if (small) pos += 8; continue; end   # type and size in 4 bytes, data in the next 4
    if (type == 14) at = [at, inner_tags(b, pos + 8, pos + 8 + len)]; end
    pos += 8 + 8 * ceil (len / 8);
  end
endfunction

function [type, len, small] = tag (b, pos)
  w = double (b(pos+1:pos+8));
  type = w(1) + 256 * w(2) + 65536 * w(3) + 16777216 * w(4);
  len = w(5) + 256 * w(6) + 65536 * w(7) + 16777216 * w(8);
  small = type >= 65536;
  if (small) len = floor (type / 65536); type = mod (type, 65536); end
endfunction

function m = set_w (m, W)
  m.fc(1).W = W;
endfunction

function b = read_bytes (path)
  fid = fopen (path, 'rb'); b = fread (fid, Inf, 'uint8=>uint8')'; fclose (fid);
endfunction

function write_bytes (path, b)
  fid = fopen (path, 'wb'); fwrite (fid, b, 'uint8'); fclose (fid);
endfunction
