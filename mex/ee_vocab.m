## -*- texinfo -*-
## @deftypefn  {} {@var{V} =} ee_vocab (@var{texts}, @dots{})
## @deftypefnx {} {[@var{V}, @var{counts}] =} ee_vocab (@var{texts}, @dots{})
## Build a vocabulary from texts with the rule the datasets use.
##
## @var{texts} is a cell of char rows (UTF-8) or one char row; they are
## tokenized as by @code{ee_tokenize}.  @var{V} is a 1 x V cell: the
## special tokens @qcode{'[PAD]'}, @qcode{'[UNK]'}, @qcode{'[CLS]'},
## @qcode{'[SEP]'}, then the words counted at least @qcode{'min_count'}
## times, by count (most frequent first), ties in alphabetical (byte)
## order, at most @qcode{'max_words'} of them.  @var{counts} (1 x V)
## holds each word's count (0 for the special tokens).
##
## Options: @qcode{'min_count'} (default 2), @qcode{'max_words'} (default
## 20000, @code{Inf} for no cap), @qcode{'T'} (count only the first T - 2
## words of each text, the words a row of length T keeps; default
## @code{Inf}, every word).  With the train rows' texts and the dataset's
## @code{info.T}, @code{info.min_count}, @code{info.vocab_cap} this is the
## dataset's vocabulary.
## @seealso{ee_tokenize, ee_detokenize, ee_train}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!test
%! [V, c] = ee_vocab ({'b a b', 'c b a', 'd', "Caf\xc3\xa9 CAFE"});
%! assert (V, {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'b', 'a', 'cafe'});
%! assert (c, [0 0 0 0 3 2 2]);

%!test
%! V = ee_vocab ({'b a b', 'c b a', 'd'}, 'min_count', 1, 'max_words', 3);
%! assert (V(5:end), {'b', 'a', 'c'});
%! V = ee_vocab ({'b a b', 'c b a', 'd'}, 'min_count', 1, 'max_words', Inf);
%! assert (V(5:end), {'b', 'a', 'c', 'd'});
%! ## 'T' = 3: one word per text counts
%! V = ee_vocab ({'b a b', 'c b a', 'd'}, 'min_count', 1, 'T', 3);
%! assert (V(5:end), {'b', 'c', 'd'});
%! V = ee_vocab ('one text one', 'min_count', 2);
%! assert (V(5:end), {'one'});
%! V = ee_vocab ({});
%! assert (V, {'[PAD]', '[UNK]', '[CLS]', '[SEP]'});

%!test
%! ## round trip: a vocabulary of texts encodes them without [UNK]
%! texts = {'The cat sat.', 'The dog sat!', 'A cat, a dog.'};
%! V = ee_vocab (texts, 'min_count', 1);
%! [X, info] = ee_tokenize (V, texts);
%! assert (all (X(:) != 2));
%! w = ee_detokenize (V, X);
%! assert (w{1}, {'[CLS]', 'the', 'cat', 'sat', '[SEP]'});
%! assert (w{3}(2:end-1), info.words{3});

%!error <Invalid call|usage> ee_vocab ()
%!error id=ee:badInput ee_vocab (3)
%!error id=ee:badInput ee_vocab ({'a', 3})
%!error <UTF-8> ee_vocab ({char([104 105 200])})
%!error id=ee:badInput ee_vocab ({'a'}, 'min_count', 0)
%!error id=ee:badInput ee_vocab ({'a'}, 'max_words', -1)
%!error id=ee:badInput ee_vocab ({'a'}, 'T', 2)
%!error id=ee:badInput ee_vocab ({'a'}, 'nosuch', 2)
