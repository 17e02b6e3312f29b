## test_fashion: datasets/fashion.mat (datasets/make_fashion.m, built by
## datasets/build.sh from Debian's dataset-fashion-mnist) against the layout
## of issue 13 and datasets/README.md: x N x 784 single in [0, 1] (whole
## bytes / 255), labels 1..10, the package's 60k/10k with a stratified
## tenth of the training rows as validation, images upright, and the
## builder deterministic (a second build gives the same bytes).
1;

%!shared d, file
%! file = fullfile (fileparts (fileparts (which ('ee_train'))), 'datasets', 'fashion.mat');
%! assert (exist (file, 'file') == 2, 'run datasets/build.sh first (%s is missing)', file);
%! d = load (file);

%!test
%! ## variables, types, sizes, pixel range
%! assert (sort (fieldnames (d))', {'classes', 'info', 'labels', 'split', 'x'});
%! assert (class (d.x), 'single');
%! assert (size (d.x), [70000 784]);
%! assert (min (d.x(:)) == 0 && max (d.x(:)) == 1);
%! ## whole bytes divided by 255: every value times 255 is an integer 0..255
%! q = double (d.x(1:5000, :)) * 255;
%! assert (max (abs (q(:) - round (q(:)))) < 1e-4);
%! assert (class (d.labels), 'int32');
%! assert (size (d.labels), [70000 1]);
%! assert (all (d.labels >= 1 & d.labels <= 10));
%! assert (d.classes, {'T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', ...
%!                     'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'});
%! assert (d.info.D, 784);
%! assert (d.info.image_size, [28 28]);

%!test
%! ## split: the package's 10000 test rows last, 6000 validation rows (600 per
%! ## class) taken from the 60000 training rows, disjoint and covering
%! s = d.split;
%! assert (numel (s.train), 54000);
%! assert (numel (s.valid), 6000);
%! assert (s.test, (60001:70000)');
%! all_rows = sort ([s.train; s.valid; s.test]);
%! assert (all_rows, (1:70000)');
%! assert (all ([s.train; s.valid] <= 60000));
%! for c = 1:10
%!   assert ([sum(d.labels(s.train) == c), sum(d.labels(s.valid) == c), ...
%!            sum(d.labels(s.test) == c)], [5400 600 1000]);
%! end
%! assert (d.info.counts, repmat ([5400 600 1000], 10, 1));

%!test
%! ## upright: the mean trouser has its waist (top centre) bright and the
%! ## gap between the legs (bottom centre) darker; a transposed image would
%! ## have both dark, a flipped one the order reversed
%! m = reshape (mean (d.x(d.labels == 2, :), 1), 28, 28);
%! top = mean (mean (m(3:6, 13:16))); bottom = mean (mean (m(22:26, 13:16)));
%! assert (top > 0.5 && top > 1.5 * bottom);

%!test
%! ## deterministic: datasets/build.sh into a fresh folder (same seed) gives
%! ## the same bytes
%! here = fileparts (file);
%! out = tempname ();
%! unwind_protect
%!   mkdir (out);
%!   [st, txt] = system (sprintf ('DATASET_SEED=%d "%s" --only fashion "%s" 2>&1', ...
%!                                d.info.seed, fullfile (here, 'build.sh'), out));
%!   assert (st, 0, txt);
%!   f1 = fopen (file); a = fread (f1, Inf, 'uint8=>uint8'); fclose (f1);
%!   f2 = fopen (fullfile (out, 'fashion.mat')); b = fread (f2, Inf, 'uint8=>uint8'); fclose (f2);
%!   assert (isequal (a, b));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (out, 'dir')) rmdir (out, 's'); end
%! end_unwind_protect
