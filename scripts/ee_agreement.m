## -*- texinfo -*-
## @deftypefn  {} {[@var{rho}, @var{overlap}] =} ee_agreement (@var{X}, @var{A}, @var{B})
## @deftypefnx {} {[@var{rho}, @var{overlap}] =} ee_agreement (@var{X}, @var{A}, @var{B}, @var{k})
## Per-row agreement of two attribution maps @var{A} and @var{B} (N x T) of
## the token rows @var{X} (N x T int32), over the real tokens of each row
## (not PAD, [CLS] or [SEP]):
##
## @var{rho} (N x 1): Spearman's rank correlation (average ranks for ties;
## NaN for a row with fewer than two real tokens or a constant map);
##
## @var{overlap} (N x 1): the share of the @var{k} (default 5) tokens with
## the largest absolute attribution in @var{B} that are also among the
## @var{k} largest in @var{A} (k = min(k, n) for a row of n real tokens; ties
## broken by position; NaN for a row without real tokens).
## @end deftypefn
function [rho, overlap] = ee_agreement (X, A, B, k)
  if (nargin < 3)
    print_usage ();
  end
  who = 'ee_agreement';
  if (! ((isnumeric (X) || islogical (X)) && isreal (X) && ismatrix (X)))
    error ('ee:badInput', 'ee_agreement: X must be an N x T matrix of token ids');
  end
  if (! isequal (size (A), size (X)) || ! isequal (size (B), size (X)))
    error ('ee:badInput', 'ee_agreement: A and B must be the size of X (%s)', mat2str (size (X)));
  end
  A = ee_check (who, 'A', A, 'reals', size (X));
  B = ee_check (who, 'B', B, 'reals', size (X));
  if (nargin < 4)
    k = 5;
  end
  k = ee_check (who, 'K', k, 'int', 1, 2^31);
  N = rows (X);
  rho = NaN (N, 1);
  overlap = NaN (N, 1);
  A = double (A); B = double (B);
  for i = 1:N
    pos = find (X(i, :) != 1 & X(i, :) != 3 & X(i, :) != 4);
    n = numel (pos);
    if (n == 0)
      continue;
    end
    a = A(i, pos); b = B(i, pos);
    if (n >= 2)
      ra = tied_ranks (a); rb = tied_ranks (b);
      ca = ra - mean (ra); cb = rb - mean (rb);
      den = sqrt (sum (ca .^ 2) * sum (cb .^ 2));
      if (den > 0)
        rho(i) = sum (ca .* cb) / den;
      end
    end
    kk = min (k, n);
    [~, oa] = sort (-abs (a)); [~, ob] = sort (-abs (b));   # stable: ties by position
    overlap(i) = numel (intersect (oa(1:kk), ob(1:kk))) / kk;
  end
end

function r = tied_ranks (v)
  [s, o] = sort (v);
  n = numel (v);
  r = zeros (1, n);
  i = 1;
  while (i <= n)
    j = i;
    while (j < n && s(j + 1) == s(i))
      j++;
    end
    r(o(i:j)) = (i + j) / 2;
    i = j + 1;
  end
end

%!test
%! X = int32 ([3 10 11 12 13 14 15 4 1 1; 3 10 4 1 1 1 1 1 1 1; 3 4 1 1 1 1 1 1 1 1]);
%! A = single ([9 1 2 3 4 5 6 9 7 7; 0 2 0 0 0 0 0 0 0 0; 0 0 0 0 0 0 0 0 0 0]);
%! [rho, ov] = ee_agreement (X, A, A);
%! assert (rho(1), 1, 1e-12);                 # specials and pads (9, 7) are ignored
%! assert (ov(1), 1);
%! assert (isnan (rho(2)) && ov(2) == 1);      # one real token: no rank correlation
%! assert (isnan (rho(3)) && isnan (ov(3)));   # no real token
%! B = A; B(1, 2:7) = -B(1, 2:7);              # reversed ranks, same magnitudes
%! [rho, ov] = ee_agreement (X(1, :), B(1, :), A(1, :));
%! assert (rho, -1, 1e-12);
%! assert (ov, 1);
%! ## against the definition: Pearson correlation of average ranks (ties)
%! a = [1 2 2 3 5 4]; b = [6 5 5 1 2 3];
%! x = int32 ([3 20:25 4]);
%! rho = ee_agreement (x, single ([0 a 0]), single ([0 b 0]));
%! ra = [1 2.5 2.5 4 6 5]; rb = [6 4.5 4.5 1 2 3];
%! c = corrcoef (ra, rb);
%! assert (rho, c(1, 2), 1e-12);
%! ## top-k: 2 of the 3 largest magnitudes shared
%! [~, ov] = ee_agreement (x, single ([0 9 8 7 0 0 0 0]), single ([0 9 0 7 8 0 0 0]), 3);
%! assert (ov, 2 / 3, 1e-12);
%!error <Invalid call> ee_agreement ()
%!error id=ee:badInput ee_agreement (int32 ([3 5 4]), single ([1 2]), single ([1 2 3]))
%!error <K must be> ee_agreement (int32 ([3 5 4]), [1 2 3], [1 2 3], 0)
%!error <A must be finite> ee_agreement (int32 ([3 5 4]), [1 NaN 3], [1 2 3])
%!error <X must be> ee_agreement ({3}, [1 2 3], [1 2 3])
