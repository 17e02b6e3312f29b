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
  vocab = ee_vocab_of (vocab);
  if (! ((isnumeric (X) || islogical (X)) && isreal (X) && ismatrix (X)))
    error ('ee:badInput', 'ee_detokenize: X must be an N x T matrix of token ids');
  end
  V = numel (vocab);
  x = double (X);
  if (any (x(:) < 1 | x(:) > V | x(:) != fix (x(:))))
    error ('ee:badInput', 'ee_detokenize: token ids must be integers in 1..%d (the vocabulary''s size)', V);
  end
  N = rows (x);
  words = cell (N, 1);
  for i = 1:N
    words{i} = vocab(x(i, x(i, :) != 1));
  end
  if (nargin < 3)
    return;
  end
  if (! (isstruct (info) && isscalar (info) && all (isfield (info, {'spans', 'text', 'words'}))) ...
      || numel (info.spans) != N || numel (info.text) != N)
    error ('ee:badInput', 'ee_detokenize: INFO must be the info output of ee_tokenize for the %d rows of X', N);
  end
  for i = 1:N
    s = info.spans{i};
    t = info.text{i};
    w = words{i};
    ## the words sit between [CLS] (position 1) and [SEP]
    if (rows (s) != numel (w) - 2 || (rows (s) && max (s(:)) > numel (t)))
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
