## interrupt_case: runs CALL (a string of Octave code, e.g. "ee_sv (m, X,
## 'samples', 50)") in a child octave-cli on 300 rows of datasets/spam.mat
## with a small transformer m, sends SIGINT a second after the call started,
## twice (two rounds in the same child). Returns r.id (the first error id
## that is not ee:interrupted, else ee:interrupted; '' when a round printed
## nothing), r.latency (the slower round's seconds from SIGINT to the
## error), r.grew (the larger growth of the child's RSS in kB over a round,
## the call and one ee_predict afterwards) and r.out (the child's output).
## Used by tests/octave/test_interrupt.m (which asserts r.id only) and by
## bench/gateway_bounds.m (which reports r.latency and r.grew: timings and
## memory sizes depend on the machine and its load, so they are not test
## assertions).
function r = interrupt_case (call)
  root = fileparts (fileparts (which ('ee_train')));
  dir = tempname (); mkdir (dir);
  child = fullfile (dir, 'child.m');
  fid = fopen (child, 'w');
  fprintf (fid, 'addpath (''%s'');\n', fullfile (root, 'mex'));
  fprintf (fid, 'd = load (''%s''); X = d.tokens(1:300, :); y = d.labels(1:300);\n', ...
           fullfile (root, 'datasets', 'spam.mat'));
  fprintf (fid, 'm = ee_train (''transformer'', X(1:40,:), y(1:40), ''epochs'', 1, ''verbose'', false, ''d'', 32, ''heads'', 2, ''vocab'', double (max (X(:))));\n');
  fprintf (fid, 'rss = @() sscanf (regexp (fileread (''/proc/self/status''), ''VmRSS:\\s*(\\d+)'', ''tokens'', ''once''){1}, ''%%d'');\n');
  fprintf (fid, 'ee_predict (m, X); ee_sv (m, X(1:2,:), ''samples'', 2, ''verbose'', false); r0 = rss ();\n');
  fprintf (fid, 'for round = 1:2\n');
  fprintf (fid, 'fclose (fopen (sprintf (''%s%%d'', round), ''w''));\n', fullfile (dir, 'started'));
  fprintf (fid, 'try\n  %s;\n  printf (''RESULT none\\n'');\n', call);
  fprintf (fid, 'catch err\n  k = str2double (fileread (sprintf (''%s%%d'', round)));\n', fullfile (dir, 'killed'));
  fprintf (fid, '  printf (''RESULT %%s %%.3f\\n'', err.identifier, time () - k);\nend\n');
  fprintf (fid, 'ee_predict (m, X(1:2,:));\n');
  fprintf (fid, 'r1 = rss (); printf (''GREW %%d\\n'', r1 - r0); r0 = r1;\nend\n');
  fclose (fid);
  sh = sprintf (['cd %s && (octave-cli --no-gui --no-history -q child.m > out.txt 2>&1 & pid=$!; ' ...
                 'for round in 1 2; do ' ...
                 'for i in $(seq 600); do [ -f started$round ] && break; sleep 0.1; done; sleep 1; ' ...
                 'date +%%s.%%N > killed$round; kill -INT $pid; done; wait $pid)'], dir);
  system (sh);
  out = fileread (fullfile (dir, 'out.txt'));
  confirm_recursive_rmdir (false, 'local');
  rmdir (dir, 's');
  ## both rounds: the first id that is not ee:interrupted, the slower
  ## latency, the larger growth (missing lines count as failures)
  r.id = ''; r.latency = Inf; r.grew = Inf;
  t = regexp (out, 'RESULT (\S+) ([\d.]+)', 'tokens');
  g = regexp (out, 'GREW (-?\d+)', 'tokens');
  if (numel (t) == 2)
    ids = cellfun (@(c) c{1}, t, 'UniformOutput', false);
    bad = find (! strcmp (ids, 'ee:interrupted'), 1);
    r.id = ids{[bad 1](1)};
    r.latency = max (cellfun (@(c) str2double (c{2}), t));
  end
  if (numel (g) == 2) r.grew = max (cellfun (@(c) str2double (c{1}), g)); end
  r.out = out;
end
