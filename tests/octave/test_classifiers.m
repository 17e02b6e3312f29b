## test_classifiers: the classifiers trained through ee_train on the real
## datasets (datasets/*.mat) at their default sizes.
## spam: test accuracy >= 0.95 for the transformer and the cnn.
## fortunes: the accuracy is reported (and must beat the majority class).
1;

%!shared root
%! root = fileparts (fileparts (which ('ee_train')));   # the repository (mex/..)

%!function acc = train_and_test (root, name, kind)
%!  d = load (fullfile (root, 'datasets', [name '.mat']));
%!  tr = d.split.train; va = d.split.valid; te = d.split.test;
%!  m = ee_train (kind, d.tokens(tr,:), d.labels(tr), 'vocab', numel (d.vocab), ...
%!                'validation', {d.tokens(va,:), d.labels(va)}, 'verbose', false);
%!  p = ee_predict (m, d.tokens(te,:));
%!  acc = mean (p == d.labels(te));
%!  printf ('      %s %s: test accuracy %.4f (%d test rows, best epoch %d of %d, %.0f s)\n', ...
%!          name, kind, acc, numel (te), m.history.best_epoch, m.history.epochs_run, m.history.seconds);
%!endfunction

%!test
%! assert (train_and_test (root, 'spam', 'cnn') >= 0.95);

%!test
%! assert (train_and_test (root, 'spam', 'transformer') >= 0.95);

%!test
%! d = load (fullfile (root, 'datasets', 'fortunes.mat'));
%! majority = max (accumarray (double (d.labels(d.split.test)), 1)) / numel (d.split.test);
%! acc = train_and_test (root, 'fortunes', 'cnn');
%! assert (acc > majority + 0.1);
%! acc = train_and_test (root, 'fortunes', 'transformer');
%! assert (acc > majority);
