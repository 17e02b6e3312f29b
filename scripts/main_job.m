## main_job: the job that the README's first command runs on the embedded
## default data: trains the classifiers on spam and fortunes and prints
## their test accuracy. (The Figure 5 pipeline extends it.)
function main_job ()
  root = fileparts (fileparts (mfilename ('fullpath')));
  for ds = {'spam', 'fortunes'}
    d = load (fullfile (root, 'datasets', [ds{1} '.mat']));
    tr = d.split.train; va = d.split.valid; te = d.split.test;
    for kind = {'transformer', 'cnn'}
      printf ('\n== %s on %s (%d train, %d valid, %d test, T = %d)\n', kind{1}, ds{1}, ...
              numel (tr), numel (va), numel (te), columns (d.tokens));
      m = ee_train (kind{1}, d.tokens(tr,:), d.labels(tr), ...
                    'validation', {d.tokens(va,:), d.labels(va)}, 'vocab', numel (d.vocab));
      p = ee_predict (m, d.tokens(te,:));
      printf ('%s %s: test accuracy %.4f (best epoch %d, %.0f s)\n', ds{1}, kind{1}, ...
              mean (p == d.labels(te)), m.history.best_epoch, m.history.seconds);
    end
  end
end
