## -*- texinfo -*-
## @deftypefn  {} {@var{words} =} ee_detokenize (@var{vocab}, @var{X})
## @deftypefnx {} {@var{words} =} ee_detokenize (@var{model}, @var{X})
## @deftypefnx {} {@var{words} =} ee_detokenize (@dots{}, @var{info})
## The words of token-id rows: the inverse of @code{ee_tokenize}.
##
## @var{X} is N x T token ids (1-based); @var{vocab} the 1 x V cell of words,
## or a model that carries them (@code{vocab_words}, see @code{ee_train}).
## @var{words} is an N x 1 cell; cell i is a 1 x L cell of the words of the
## non-PAD positions of row i, in order (@qcode{'[CLS]'}, the words,
## @qcode{'[SEP]'}), so that @code{words@{i@}@{k@}} belongs to the k-th
## non-PAD column of row i.
##
## With the @var{info} output of @code{ee_tokenize} for the same rows, the
## words are spelled as in the original text (@qcode{'Don''t'},
## @qcode{'Café'}, and the original of every @qcode{'[UNK]'}).
## @seealso{ee_tokenize, ee_vocab, ee_heatmap}
## @end deftypefn

function words = ee_detokenize (vocab, X, info)
  if (nargin < 2)
    print_usage ();
  end
  who = 'ee_detokenize';
  vocab = ee_vocab_of (vocab, who);
  x = ee_check (who, 'X', X, 'ids', numel (vocab));
  N = rows (x);
  words = cell (N, 1);
  for i = 1:N
    words{i} = vocab(x(i, x(i, :) != 1));
  end
  if (nargin < 3)
    return;
  end
  if (! (isstruct (info) && isscalar (info) && all (isfield (info, {'spans', 'text', 'words'}))) ...
      || ! iscell (info.spans) || ! iscell (info.text) || numel (info.spans) != N || numel (info.text) != N)
    error ('ee:badInput', 'ee_detokenize: INFO must be the info output of ee_tokenize for the %d rows of X', N);
  end
  for i = 1:N
    s = info.spans{i};
    t = ee_check (who, sprintf ('INFO.text{%d}', i), info.text{i}, 'text');
    w = words{i};
    ## the words sit between [CLS] (position 1) and [SEP]; a span is
    ## [first last] bytes of the text, 1-based
    if (isempty (s))
      s = zeros (0, 2);
    end
    if (! (isnumeric (s) && isreal (s) && ismatrix (s) && columns (s) == 2) ...
        || ! all (s(:) == fix (s(:))) || ! all (s(:, 1) >= 1 & s(:, 2) >= s(:, 1) & s(:, 2) <= numel (t)))
      error ('ee:badInput', ['ee_detokenize: INFO.spans{%d} must be [first last] byte pairs of INFO.text{%d}, ' ...
                             'whole numbers in 1..%d'], i, i, numel (t));
    end
    if (rows (s) != numel (w) - 2)
      error ('ee:badInput', 'ee_detokenize: INFO does not match row %d of X', i);
    end
    for k = 1:rows (s)
      w{k + 1} = t(s(k, 1):s(k, 2));
    end
    words{i} = w;
  end
end

%!shared V
%! V = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'dont', 'stop', 'cafe'};

%!test
%! w = ee_detokenize (V, int32 ([3 5 2 4 1; 3 6 4 1 1]));
%! assert (w, {{'[CLS]', 'dont', '[UNK]', '[SEP]'}; {'[CLS]', 'stop', '[SEP]'}});

%!test
%! ## round trip through ee_tokenize, with the original spellings
%! txt = {"Don't STOP the Caf\xc3\xa9!", 'stop'};
%! [X, info] = ee_tokenize (V, txt);
%! w = ee_detokenize (V, X);
%! assert (w{1}, {'[CLS]', 'dont', 'stop', '[UNK]', 'cafe', '[UNK]', '[SEP]'});
%! w = ee_detokenize (V, X, info);
%! assert (w{1}, {'[CLS]', "Don't", 'STOP', 'the', "Caf\xc3\xa9", '!', '[SEP]'});
%! assert (w{2}, {'[CLS]', 'stop', '[SEP]'});
%! ## a model that carries its words
%! assert (ee_detokenize (struct ('vocab_words', {V}), X), ee_detokenize (V, X));

%!error <Invalid call> ee_detokenize (V)
%!error id=ee:badInput ee_detokenize (V, [3 8 4])
%!error id=ee:badInput ee_detokenize (V, [3 1.5 4])
%!error id=ee:badInput ee_detokenize (V, 'abc')
%!error id=ee:badInput ee_detokenize ({'a', 'b'}, [1 2])
%!error id=ee:badModel ee_detokenize (struct ('kind', 'cnn'), [3 4])
%!error id=ee:badInput ee_detokenize (V, [3 5 4], struct ('spans', {{}}, 'text', {{}}, 'words', {{}}))
%!error <spans> ee_detokenize (V, [3 5 4], struct ('spans', {{[0 3]}}, 'text', {{'dont'}}, 'words', {{{'dont'}}}))
%!error <spans> ee_detokenize (V, [3 5 4], struct ('spans', {{[NaN 3]}}, 'text', {{'dont'}}, 'words', {{{'dont'}}}))
%!error <spans> ee_detokenize (V, [3 5 4], struct ('spans', {{[-1 3]}}, 'text', {{'dont'}}, 'words', {{{'dont'}}}))
%!error <repeats> ee_detokenize ([V {'stop'}], [3 5 4])
%!error <empty> ee_detokenize ([V {''}], [3 5 4])
%!error <NUL> ee_detokenize ([V {['a' char(0)]}], [3 5 4])
%!error <UTF-8> ee_detokenize ([V {char([97 255])}], [3 5 4])
