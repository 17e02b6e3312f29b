## test_callback: the handle forms' argument array is kept from call to
## call and filled in place (mex/mexfeval.cc); what f keeps of it, or
## returns of it, must not change under f's feet, and f must see the same
## rows and give the same attributions as when each call had its own array.
1;

%!function y = keeper (x, w)
%!  ## keeps every batch it gets, and its sum at the time it got it
%!  global kept sums
%!  kept{end+1} = x;
%!  sums(end+1) = sum (x(:));
%!  y = x * w;
%!endfunction

%!function y = copier (x, w)
%!  ## the same model, without keeping anything
%!  y = x * w;
%!endfunction

%!function y = one_output (x)
%!  ## called with nargout 1 (not the gateway caller's)
%!  assert (nargout, 1);
%!  y = sum (x, 2);
%!endfunction

%!test
%! global kept sums
%! kept = {}; sums = [];
%! randn ('seed', 3);
%! w = randn (7, 1); X = randn (6, 7);
%! [A, info] = ee_sv (@(x) keeper (x, w), X, 'samples', 4, 'batch', 5, 'seed', 2, 'verbose', false);
%! assert (numel (kept), info.calls);
%! assert (info.calls > 4);
%! ## every batch f kept still holds what f saw
%! assert (cellfun (@(x) sum (x(:)), kept), sums);
%! ## and the batches are distinct arrays with their own contents
%! assert (any (cellfun (@(x) ! isequal (x, kept{2}), kept(3:end))));
%! B = ee_sv (@(x) copier (x, w), X, 'samples', 4, 'batch', 5, 'seed', 2, 'verbose', false);
%! assert (A, B);                     # keeping the argument changes nothing
%! clear -global kept sums

%!test
%! ## f returns its argument itself (one column): the next batch is written
%! ## into an array the last scores no longer share
%! X = (1:9)';
%! A = ee_sv (@(x) x, X, 'baseline', 0.5, 'samples', 3, 'batch', 4, 'verbose', false);
%! B = ee_sv (@(x) x + 0, X, 'baseline', 0.5, 'samples', 3, 'batch', 4, 'verbose', false);
%! assert (A, B);
%! assert (A, X - 0.5);
%! ## the same through KernelSHAP and LIME's generator
%! A = ee_sv (@(x) [x, -x], [X, X], 'method', 'kernelshap', 'batch', 3, 'verbose', false);
%! B = ee_sv (@(x) [x + 0, -x], [X, X], 'method', 'kernelshap', 'batch', 3, 'verbose', false);
%! assert (A, B);

%!test
%! ## f's nargout is its own, whatever the gateway's caller asked for
%! X = randn (4, 3);
%! [~, info] = ee_sv (@one_output, X, 'samples', 2, 'verbose', false);
%! assert (info.calls >= 2);
%! [A, ~] = ee_occlusion (@one_output, X);
%! assert (A, X, 1e-12);

%!test
%! ## single scores are converted, as before
%! X = randn (5, 4);
%! A = ee_sv (@(x) single (sum (x, 2)), X, 'samples', 2, 'verbose', false);
%! assert (A, X, 1e-5);
