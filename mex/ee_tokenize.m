## -*- texinfo -*-
## @deftypefn  {} {@var{X} =} ee_tokenize (@var{vocab}, @var{text}, @dots{})
## @deftypefnx {} {@var{X} =} ee_tokenize (@var{model}, @var{text}, @dots{})
## @deftypefnx {} {[@var{X}, @var{info}] =} ee_tokenize (@dots{})
## Turn texts into rows of token ids, exactly as the datasets were built.
##
## @var{text} is a char row (one text) or a cell of char rows (N texts, in
## linear order); UTF-8.  @var{vocab} is a 1 x V cell of words whose first
## four are @qcode{'[PAD]'}, @qcode{'[UNK]'}, @qcode{'[CLS]'},
## @qcode{'[SEP]'} (as in @code{datasets/*.mat} or from @code{ee_vocab}), or
## a classifier / explainer trained with @code{ee_train (..., 'vocab',
## VOCAB)}, which carries its words (@code{vocab_words}) and its T.
##
## The rule (libcore's, shared with the dataset builders): Unicode NFKD with
## the combining marks dropped (@qcode{'café'} becomes @qcode{'cafe'}),
## lower case, apostrophes between letters or digits deleted
## (@qcode{'don''t'} becomes @qcode{'dont'}); words are the runs of
## @code{[a-z0-9]} (runs longer than 30 characters are dropped), one
## @qcode{'!'} per run of @qcode{'!'} and one @qcode{'$'} per run of
## @qcode{'$'}; everything else separates words.
##
## Row i of the N x T int32 @var{X} is @code{[CLS]}, the ids of the words,
## @code{[SEP]}, then @code{[PAD]} (id 1) up to T; a word absent from the
## vocabulary is @code{[UNK]} (id 2).  T is the model's, else option
## @qcode{'T'}, else the longest text's word count + 2.
##
## Options:
## @table @asis
## @item 'T'
## the row length (with a model it must equal the model's T).
## @item 'truncate'
## true (default): a text with more than T - 2 words keeps its first T - 2
## (@code{info.truncated} says which); false: such a text is an
## @code{ee:badInput} error.
## @item 'empty'
## @qcode{'error'} (default): a text without any word is an
## @code{ee:badInput} error; @qcode{'keep'}: it becomes @code{[CLS] [SEP]}.
## @end table
##
## @var{info} has @code{T}; per text (N x 1): @code{n_words} (before
## truncation), @code{truncated} (logical), @code{n_unknown} (words that
## became [UNK]), @code{words} (cell: the tokenizer's words in the row, word
## k at column k + 1 of @var{X}), @code{spans} (cell: a k x 2 matrix, row k
## the first and last index of word k in the text, so that
## @code{text(spans(k,1):spans(k,2))} is the original spelling, e.g.
## @qcode{'Don''t'} or a word that became [UNK]), @code{text} (the texts).
##
## Invalid UTF-8, a text that is not a char row, a vocabulary without the
## special tokens or with repeated words: @code{ee:badInput} (a model's
## malformed vocabulary: @code{ee:badModel}).
## @seealso{ee_detokenize, ee_vocab, ee_plot_text, ee_train}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared V
%! V = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'dont', '!', '$', 'stop', 'cafe'};

%!test
%! ## the issue's example: every word the vocabulary has is found
%! [X, info] = ee_tokenize (V, "Don't \xe2\x80\xa6 stop!!! $$$ Caf\xc3\xa9 na\xc3\xafve");
%! assert (class (X), 'int32');
%! assert (X, int32 ([3 5 8 6 7 9 2 4]));
%! assert (info.words{1}, {'dont', 'stop', '!', '$', 'cafe', 'naive'});
%! t = info.text{1}; s = info.spans{1};
%! orig = arrayfun (@(k) t(s(k, 1):s(k, 2)), 1:rows (s), 'uniformoutput', false);
%! assert (orig, {"Don't", 'stop', '!!!', '$$$', "Caf\xc3\xa9", "na\xc3\xafve"});
%! assert ([info.n_words info.n_unknown info.T], [6 1 8]);
%! assert (info.truncated, false);

%!test
%! ## several texts, padding to the longest, then to 'T' with truncation
%! [X, info] = ee_tokenize (V, {'stop', 'dont stop'; 'x y z', 'stop!'});
%! assert (X, int32 ([3 8 4 1 1; 3 2 2 2 4; 3 5 8 4 1; 3 8 6 4 1]));
%! assert (info.n_words', [1 3 2 2]);
%! [X, info] = ee_tokenize (V, {'stop', 'x y z w'}, 'T', 4);
%! assert (X, int32 ([3 8 4 1; 3 2 2 4]));
%! assert (info.truncated', [false true]);
%! assert (info.n_words', [1 4]);
%! assert (numel (info.words{2}), 2);
%! X = ee_tokenize (V, {'...', 'stop'}, 'empty', 'keep');
%! assert (X, int32 ([3 4 1; 3 8 4]));

%!test
%! ## a model that carries its words: its T, its vocabulary
%! X = int32 ([3 5 8 4 1 1; 3 6 7 4 1 1; 3 5 5 4 1 1; 3 9 8 4 1 1]);
%! m = ee_train ('cnn', X, [1; 2; 1; 2], 'epochs', 1, 'verbose', false, 'd', 4, 'filters', 2, ...
%!               'widths', 2, 'vocab', V, 'classes', {'no', 'yes'});
%! assert (m.vocab_words, V);
%! assert (m.class_names, {'no', 'yes'});
%! [Y, info] = ee_tokenize (m, 'Stop, stop!');
%! assert (Y, int32 ([3 8 8 6 4 1]));
%! assert (info.T, 6);

%!error <Invalid call|usage> ee_tokenize ()
%!error id=ee:badInput ee_tokenize (V)
%!error id=ee:badInput ee_tokenize (V, '')
%!error id=ee:badInput ee_tokenize (V, '... ,')
%!error id=ee:badInput ee_tokenize (V, {'ok', ''})
%!error <UTF-8> ee_tokenize (V, char ([100 255 100]))
%!error <UTF-8> ee_tokenize (V, char ([237 160 128]))
%!error id=ee:badInput ee_tokenize (V, 42)
%!error id=ee:badInput ee_tokenize (V, ['ab'; 'cd'])
%!error id=ee:badInput ee_tokenize (V, {'ok', 3})
%!error id=ee:badInput ee_tokenize (V, 'a b c d', 'T', 4, 'truncate', false)
%!error id=ee:badInput ee_tokenize (V, 'a', 'T', 2)
%!error id=ee:badInput ee_tokenize (V, 'a', 'nosuch', 1)
%!error id=ee:badInput ee_tokenize (V, 'a', 'empty', 'maybe')
%!error <special token \[PAD\]> ee_tokenize (V(2:end), 'a')
%!error <repeats> ee_tokenize ([V {'stop'}], 'a')
%!error id=ee:badInput ee_tokenize ([V {''}], 'a')
%!error id=ee:badInput ee_tokenize ([V {3}], 'a')
%!error id=ee:badInput ee_tokenize ('stop', 'a')
%!error id=ee:badModel ee_tokenize (struct ('kind', 'cnn'), 'a')
%!error id=ee:badModel ee_tokenize (struct ('vocab_words', {V}, 'T', 0), 'a')
%!error id=ee:badModel ee_tokenize (struct ('vocab_words', {V}, 'T', 6, 'vocab', 5), 'a')
%!error id=ee:badModel ee_tokenize (struct ('vocab_words', {V(2:end)}, 'T', 6), 'a')
%!error id=ee:badInput ee_tokenize (struct ('vocab_words', {V}, 'T', 6), 'a', 'T', 5)
