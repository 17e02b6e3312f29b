## v = ee_check (who, name, v, kind, ...): the one input check of the
## toolbox scripts.  Returns V in a normal form, or raises ee:badInput with
## the message "WHO: NAME must be ..., got ..." (so that no Octave-internal
## error, raised later by a value nobody checked, reaches the user).
##
## Kinds (extra arguments after KIND):
##   'text'            a char row or '' (UTF-8 without NUL)
##   'name'            a non-empty text
##   'file', EXTS      a non-empty text whose folder exists; EXTS a cell of
##                     allowed extensions ({} for any)
##   'files', EXTS     a file or a non-empty cell of them; returns a cell
##   'texts', N        a cell of N texts (N = [] for any count); returns 1 x N
##   'flag'            true or false (logical or 0/1); returns a logical
##   'int', LO, HI     a whole number in LO..HI; returns a double
##   'number', LO, HI  a finite real number in LO..HI; returns a double
##   'positive'        a finite real number > 0; returns a double
##   'choice', LIST    one of the char rows of LIST, any case; returns it in
##                     lower case
##   'ids', V          a real matrix of token ids, integers in 1..V; double
##   'indices', N, K   N whole numbers in 1..K (a vector); a double column
##   'reals', SIZE     a real finite numeric array of that size; double
##   'words'           vocabulary words: a cell of distinct non-empty texts
function v = ee_check (who, name, v, kind, varargin)
  switch (kind)
    case 'text'
      text_ok (who, name, v, 'a char row (text)');
    case 'name'
      text_ok (who, name, v, 'a non-empty char row');
      if (isempty (v))
        fail (who, name, 'a non-empty char row', v);
      end
    case 'file'
      v = file_ok (who, name, v, varargin{:});
    case 'files'
      if (ischar (v))
        v = {v};
      end
      if (! iscell (v) || isempty (v))
        fail (who, name, 'a file name or a non-empty cell of file names', v);
      end
      v = reshape (v, 1, []);
      for k = 1:numel (v)
        v{k} = file_ok (who, sprintf ('%s{%d}', name, k), v{k}, varargin{:});
      end
    case 'texts'
      if (! iscell (v) || (! isempty (varargin{1}) && numel (v) != varargin{1}))
        if (isempty (varargin{1}))
          fail (who, name, 'a cell of char rows', v);
        end
        fail (who, name, sprintf ('a cell of %d char rows', varargin{1}), v);
      end
      v = reshape (v, 1, []);
      for k = 1:numel (v)
        text_ok (who, sprintf ('%s{%d}', name, k), v{k}, 'a char row (text)');
      end
    case 'flag'
      if (! ((islogical (v) || (isnumeric (v) && isreal (v))) && isscalar (v) && (v == 0 || v == 1)))
        fail (who, name, 'true or false', v);
      end
      v = logical (v);
    case 'int'
      [lo, hi] = deal (varargin{1:2});
      if (! (real_scalar (v) && v == fix (v) && v >= lo && v <= hi))
        fail (who, name, sprintf ('a whole number in %s..%s', num (lo), num (hi)), v);
      end
      v = double (v);
    case 'number'
      [lo, hi] = deal (varargin{1:2});
      if (! (real_scalar (v) && isfinite (v) && v >= lo && v <= hi))
        fail (who, name, sprintf ('a number in [%s, %s]', num (lo), num (hi)), v);
      end
      v = double (v);
    case 'positive'
      if (! (real_scalar (v) && isfinite (v) && v > 0))
        fail (who, name, 'a positive finite number', v);
      end
      v = double (v);
    case 'choice'
      list = varargin{1};
      if (! (ischar (v) && isrow (v) && all (v > 0 & v < 128) && any (strcmpi (v, list))))   # the choices are ASCII
        fail (who, name, ['one of ' strjoin(cellfun (@(s) ['''' s ''''], list, 'uniformoutput', false), ', ')], v);
      end
      v = lower (v);
    case 'ids'
      V = varargin{1};
      if (! ((isnumeric (v) || islogical (v)) && isreal (v) && ismatrix (v) && ! issparse (v)))
        fail (who, name, 'a matrix of token ids', v);
      end
      v = double (v);
      if (! all (v(:) >= 1 & v(:) <= V & v(:) == fix (v(:))))
        bad = find (! (v(:) >= 1 & v(:) <= V & v(:) == fix (v(:))), 1);
        error ('ee:badInput', '%s: %s must hold token ids, whole numbers in 1..%d (the vocabulary''s size); element %d is %g', ...
               who, name, V, bad, v(bad));
      end
    case 'indices'
      [N, K] = deal (varargin{1:2});
      if (! ((isnumeric (v) || islogical (v)) && isreal (v) && isvector (v) && numel (v) == N) && ! (N == 0 && isempty (v)))
        fail (who, name, sprintf ('a vector of %d whole numbers in 1..%s', N, num (K)), v);
      end
      v = double (v(:));
      if (! all (v >= 1 & v <= K & v == fix (v)))
        bad = find (! (v >= 1 & v <= K & v == fix (v)), 1);
        error ('ee:badInput', '%s: %s must hold whole numbers in 1..%s; element %d is %g', who, name, num (K), bad, v(bad));
      end
    case 'reals'
      sz = varargin{1};
      if (! ((isnumeric (v) || islogical (v)) && isreal (v) && ! issparse (v) && isequal (size (v), sz)))
        fail (who, name, sprintf ('a real %s array', strjoin (arrayfun (@num2str, sz, 'uniformoutput', false), 'x')), v);
      end
      v = double (v);
      if (! all (isfinite (v(:))))
        error ('ee:badInput', '%s: %s must be finite; element %d is %g', who, name, find (! isfinite (v(:)), 1), ...
               v(find (! isfinite (v(:)), 1)));
      end
    case 'words'
      if (! iscell (v) || ! (isvector (v) || isempty (v)))
        fail (who, name, 'a 1 x V cell of words', v);
      end
      v = reshape (v, 1, []);
      if (! iscellstr (v) || ! all (cellfun ('size', v, 1) == 1))
        k = find (! cellfun (@(w) ischar (w) && isrow (w), v), 1);
        fail (who, sprintf ('%s{%d}', name, k), 'a non-empty char row (a word)', v{k});
      end
      k = find (cellfun ('isempty', v), 1);
      if (! isempty (k))
        error ('ee:badInput', '%s: %s{%d} is empty: every word has at least one character', who, name, k);
      end
      all_words = [v{:}];
      if (any (all_words == 0))
        k = find (cellfun (@(w) any (w == 0), v), 1);
        error ('ee:badInput', '%s: %s{%d} has a NUL character', who, name, k);
      end
      if (! utf8_ok (all_words))
        k = find (! cellfun (@utf8_ok, v), 1);
        error ('ee:badInput', '%s: %s{%d} is not valid UTF-8', who, name, k);
      end
      [u, first] = unique (v, 'first');
      if (numel (u) != numel (v))
        dup = setdiff (1:numel (v), first);
        k = min (dup);
        error ('ee:badInput', '%s: %s{%d} (''%s'') repeats an earlier word', who, name, k, shown (v{k}));
      end
    otherwise
      error ('ee:badInput', 'ee_check: unknown kind ''%s'' (a bug of %s)', kind, who);
  end
end

function text_ok (who, name, v, what)
  if (! (ischar (v) && (isrow (v) || isequal (size (v), [0 0]) || (rows (v) == 1 && isempty (v)))))
    fail (who, name, what, v);
  end
  if (any (v == 0))
    error ('ee:badInput', '%s: %s has a NUL character (at %d)', who, name, find (v == 0, 1));
  end
  if (! utf8_ok (v))
    error ('ee:badInput', '%s: %s is not valid UTF-8 (convert other encodings first, e.g. native2unicode (uint8 (s), ''latin1''))', ...
           who, name);
  end
end

function f = file_ok (who, name, f, exts)
  if (nargin < 4)
    exts = {};
  end
  text_ok (who, name, f, 'a file name (a non-empty char row)');
  if (isempty (f))
    fail (who, name, 'a file name (a non-empty char row)', f);
  end
  [d, ~, e] = fileparts (f);
  if (! isempty (exts) && ! any (strcmpi (e, exts)))
    error ('ee:badInput', '%s: %s (''%s'') must end in %s', who, name, shown (f), strjoin (exts, ', '));
  end
  if (! isempty (d) && ! isfolder (d))
    error ('ee:ioError', '%s: %s (''%s''): the folder ''%s'' does not exist', who, name, shown (f), shown (d));
  end
  if (isfolder (f))
    error ('ee:badInput', '%s: %s (''%s'') is a folder: give a file name', who, name, shown (f));
  end
end

function ok = real_scalar (v)
  ok = isnumeric (v) && isreal (v) && isscalar (v) && ! issparse (v);   # true is a flag, not a number
end

function ok = utf8_ok (s)
  ## Octave's own validator replaces each bad sequence: valid = unchanged
  ok = all (s < 128) || strcmp (__u8_validate__ (s), s);
end

function s = num (x)
  if (x == fix (x) && abs (x) < 1e15) s = sprintf ('%d', x); else s = sprintf ('%g', x); end
  if (isinf (x)) s = ifelse_sign (x); end
end

function s = ifelse_sign (x)
  if (x > 0) s = 'Inf'; else s = '-Inf'; end
end

## A value as the message shows it: short printable text, a number, or
## its size and class.
function s = shown (v)
  if (ischar (v) && isrow (v) && numel (v) <= 60 && all (v >= 32 & v != 127) && utf8_ok (v))
    s = v;
  elseif (ischar (v) && isrow (v))
    s = v(1:min (end, 40));
    s(s < 32 | s == 127) = '?';
    if (! utf8_ok (s)) s(s >= 128) = '?'; end
    if (numel (v) > 40) s = [s '...']; end
  else
    s = sprintf ('%s %s', strjoin (arrayfun (@num2str, size (v), 'uniformoutput', false), 'x'), class (v));
  end
end

function fail (who, name, what, v)
  if ((isnumeric (v) || islogical (v)) && isscalar (v) && isreal (v))
    got = sprintf ('%g', v);
  elseif (ischar (v) && isrow (v))
    got = ['''' shown(v) ''''];
  else
    got = ['a ' shown(v)];
  end
  error ('ee:badInput', '%s: %s must be %s, got %s', who, name, what, got);
end
