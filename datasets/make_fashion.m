function make_fashion (srcdir, outfile, seed, version, pkgdir)
  % MAKE_FASHION  Build fashion.mat from the IDX files of Fashion-MNIST.
  %
  %   make_fashion (SRCDIR, OUTFILE, SEED, VERSION, PKGDIR) reads the four
  %   decompressed IDX files in SRCDIR (train-images-idx3-ubyte,
  %   train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
  %   t10k-labels-idx1-ubyte: datasets/build.sh unpacks them from PKGDIR,
  %   the files of the Debian package dataset-fashion-mnist VERSION) and
  %   saves x, labels, classes, split and info to OUTFILE (MAT v7), see
  %   datasets/README.md. The 116-byte MAT header text (where Octave puts
  %   the time) is a fixed text, so the same inputs give the same bytes.
  %
  % Why Octave and not a node builder like the text datasets: an IDX file
  % is a 4-byte magic number, big-endian int32 sizes and then the raw
  % bytes, which fread reads directly, and the result goes straight into
  % a .mat; nothing here needs the text rule or an intermediate file.
  [xtr, ytr] = read_pair (srcdir, 'train', 60000);
  [xte, yte] = read_pair (srcdir, 't10k', 10000);
  x = [xtr; xte];
  labels = int32 ([ytr; yte]) + 1;
  clear xtr xte;
  classes = {'T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', ...
             'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'};
  C = numel (classes);
  ntr = numel (ytr);
  N = rows (x);

  % validation rows: per class, the tenth of the package's training rows
  % with the smallest key of a Lehmer hash of (row + seed); products stay
  % below 2^53, so the keys are exact integers on every machine (Octave's
  % rand and randperm may change between versions)
  m = 2^31 - 1;
  idx = (1:ntr)';
  key = mod (48271 * mod (16807 * mod (idx + seed, m), m), m);
  valid = false (ntr, 1);
  for c = 1:C
    r = find (labels(1:ntr) == c);
    [~, o] = sortrows ([key(r), r]);
    valid(r(o(1:round (numel (r) / 10)))) = true;
  end
  split = struct ('train', find (! valid), 'valid', find (valid), ...
                  'test', (ntr + 1 : N)');
  counts = zeros (C, 3);
  for c = 1:C
    counts(c, :) = [sum(labels(split.train) == c), sum(labels(split.valid) == c), ...
                    sum(labels(split.test) == c)];
  end

  info = struct ();
  info.name = 'fashion';
  info.source = ['Debian package dataset-fashion-mnist ' version ...
                 ' (Fashion-MNIST, Zalando SE, MIT licence)'];
  info.source_package = 'dataset-fashion-mnist';
  info.source_version = version;
  info.source_dir = pkgdir;
  info.source_files = {'train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz', ...
                       't10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz'};
  info.builder = 'datasets/make_fashion.m';
  info.N = N;
  info.D = 784;
  info.image_size = [28 28];
  info.pixel_order = 'column-major: reshape (x(i,:), 28, 28) is image i upright (row 1 at the top)';
  info.scaling = 'x = single (byte) / 255, so 0 (background) .. 1';
  info.categories = classes;
  info.split_method = ['test: the package''s 10000 t10k rows; valid: per class, the ' ...
                       'tenth of the 60000 training rows with the smallest key ' ...
                       'mod(48271 * mod(16807 * mod(row + seed, 2^31-1), 2^31-1), 2^31-1) ' ...
                       '(ties by row); train: the rest'];
  info.seed = seed;
  info.counts = counts;
  info.counts_rows = classes;
  info.counts_cols = {'train', 'valid', 'test'};

  tmp = [outfile '.tmp'];
  save ('-v7', tmp, 'x', 'labels', 'classes', 'split', 'info');
  txt = 'MATLAB 5.0 MAT-file, Platform: GLNXA64, written by datasets/make_fashion.m (fashion)';
  txt = [txt, repmat(' ', 1, 116 - numel (txt))];
  fid = fopen (tmp, 'r+');
  fseek (fid, 0, 'bof');
  fwrite (fid, txt, 'char');
  fclose (fid);
  [err, msg] = rename (tmp, outfile);
  if (err != 0)
    error ('ee:ioError', 'make_fashion: rename to %s failed: %s', outfile, msg);
  end
  printf ('wrote %s: x %dx%d single, C=%d, train/valid/test %d/%d/%d\n', outfile, N, ...
          columns (x), C, numel (split.train), numel (split.valid), numel (split.test));
end

% Images (n x 784 single, column-major pixels) and labels (n x 1, 0-based)
% of one part of the package.
function [x, y] = read_pair (srcdir, part, n)
  raw = read_idx (fullfile (srcdir, [part '-images-idx3-ubyte']), 2051, [n 28 28]);
  y = double (read_idx (fullfile (srcdir, [part '-labels-idx1-ubyte']), 2049, n))(:);
  if (any (y > 9))
    error ('ee:ioError', 'make_fashion: %s labels must be 0..9, found %d', part, max (y));
  end
  % raw is 784 x n, each column an image row by row (IDX order); transpose
  % every image so that its column-major vector is the upright picture
  x = reshape (permute (reshape (raw, 28, 28, n), [2 1 3]), 784, n).';
  x = single (x) / 255;
end

% The data of an IDX file with the expected magic number and sizes, as a
% uint8 array of prod(dims) elements (prod(dims(2:end)) x dims(1)).
function data = read_idx (file, magic, dims)
  fid = fopen (file, 'r', 'ieee-be');
  if (fid < 0)
    error ('ee:ioError', 'make_fashion: cannot open %s (datasets/build.sh unpacks it)', file);
  end
  head = fread (fid, 1 + numel (dims), 'int32');
  want = [magic; dims(:)];
  if (! isequal (head, want))
    fclose (fid);
    error ('ee:ioError', 'make_fashion: %s: expected the IDX header [%s], found [%s]', file, ...
           num2str (want'), num2str (head'));
  end
  data = fread (fid, [prod(dims(2:end)), dims(1)], 'uint8=>uint8');
  extra = fread (fid, 1);
  fclose (fid);
  if (numel (data) != prod (dims) || ! isempty (extra))
    error ('ee:ioError', 'make_fashion: %s: expected %d bytes of data after the header', file, prod (dims));
  end
end
