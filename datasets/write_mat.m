function write_mat (base, outfile)
  % WRITE_MAT  Turn the intermediate files written by make_*.js into a .mat.
  %
  %   write_mat (BASE, OUTFILE) reads BASE.json (labels, vocab, classes,
  %   split, info) and BASE.tokens.i32 (int32 little-endian, row-major
  %   N x T) and BASE.unlabelled.i32 (the same for M unlabelled rows) and
  %   saves tokens, labels, vocab, classes, split, info, unlabelled to
  %   OUTFILE in MAT v7 format. The 116-byte MAT header text (which Octave
  %   fills with the current time) is overwritten with a fixed text so that
  %   the file is byte-for-byte reproducible.
  meta = jsondecode (fileread ([base '.json']));
  N = double (meta.N);
  T = double (meta.T);

  fid = fopen ([base '.tokens.i32'], 'r', 'ieee-le');
  if (fid < 0)
    error ('write_mat: cannot open %s.tokens.i32', base);
  end
  tokens = fread (fid, [T, N], 'int32=>int32');
  fclose (fid);
  if (! isequal (size (tokens), [T, N]))
    error ('write_mat: %s.tokens.i32 has the wrong size', base);
  end
  tokens = tokens.';

  % unlabelled rows (explainer training inputs), M x T, possibly empty
  M = 0;
  if (isfield (meta, 'M'))
    M = double (meta.M);
  end
  fid = -1;
  if (M > 0)
    fid = fopen ([base '.unlabelled.i32'], 'r', 'ieee-le');
  end
  if (fid < 0)
    unlabelled = zeros (0, T, 'int32');
  else
    unlabelled = fread (fid, [T, M], 'int32=>int32').';
    fclose (fid);
  end
  if (! isequal (size (unlabelled), [M, T]))
    error ('write_mat: %s.unlabelled.i32 has the wrong size', base);
  end

  labels = int32 (meta.labels(:));
  vocab = reshape (meta.vocab, 1, []);
  classes = reshape (meta.classes, 1, []);
  split = struct ('train', col (meta.split.train), ...
                  'valid', col (meta.split.valid), ...
                  'test',  col (meta.split.test));
  info = rowcells (meta.info);
  info.split_fractions = reshape (info.split_fractions, 1, []);

  if (numel (labels) != N || numel (vocab) < 4)
    error ('write_mat: inconsistent intermediate data in %s.json', base);
  end

  tmp = [outfile '.tmp'];
  save ('-v7', tmp, 'tokens', 'labels', 'vocab', 'classes', 'split', 'info', 'unlabelled');

  % Fixed header text (no timestamp) -> reproducible bytes.
  txt = sprintf ('MATLAB 5.0 MAT-file, Platform: GLNXA64, written by datasets/write_mat.m (%s)', meta.info.name);
  txt = [txt, repmat(' ', 1, 116 - numel (txt))];
  fid = fopen (tmp, 'r+');
  fseek (fid, 0, 'bof');
  fwrite (fid, txt, 'char');
  fclose (fid);

  [err, msg] = rename (tmp, outfile);   % Octave: err == 0 on success
  if (err != 0)
    error ('write_mat: rename to %s failed: %s', outfile, msg);
  end
  printf ('wrote %s: tokens %dx%d, V=%d, C=%d\n', outfile, N, T, numel (vocab), numel (classes));
end

function x = rowcells (x)
  % jsondecode returns JSON string arrays as column cells: make them rows
  % (like vocab and classes), recursively.
  if (iscell (x))
    x = reshape (cellfun (@rowcells, x, 'UniformOutput', false), 1, []);
  elseif (isstruct (x) && isscalar (x))
    for f = fieldnames (x).'
      x.(f{1}) = rowcells (x.(f{1}));
    end
  end
end

function v = col (x)
  v = double (x(:));
  if (isempty (v))
    v = zeros (0, 1);
  end
end
