## bench/full_cli/prepare.m: copies datasets/{wordnet,fortunes,spam}.mat into
## DIR with one more variable, fit: the training rows and then the
## unlabelled ones (what figure5 trains the explainers on), for run.sh.
##   octave-cli --eval "addpath('bench/full_cli'); prepare('/tmp/eefull_data')"
function prepare (dir)
  if (! exist (dir, 'dir'))
    mkdir (dir);
  end
  for f = {'wordnet', 'fortunes', 'spam'}
    d = load (fullfile ('datasets', [f{1} '.mat']));
    d.fit = [d.tokens(d.split.train,:); d.unlabelled];
    save ('-v7', fullfile (dir, [f{1} '.mat']), '-struct', 'd');
    printf ('%s: %d rows to fit the explainer\n', f{1}, rows (d.fit));
  end
end
