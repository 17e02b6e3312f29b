## vocab = ee_vocab_of (vocab_or_model, who): the vocabulary cell of a
## vocabulary or of a model that carries one (vocab_words), checked: a
## cell of distinct non-empty words (UTF-8, no NUL) starting with the four
## special tokens.  The scripts that show words (ee_detokenize,
## ee_heatmap, ee_heatmap_html, ee_plot_text) share it.
function vocab = ee_vocab_of (v, who)
  if (nargin < 2)
    who = 'ee';
  end
  specials = {'[PAD]', '[UNK]', '[CLS]', '[SEP]'};
  if (isstruct (v) && isscalar (v))
    if (! isfield (v, 'vocab_words'))
      error ('ee:badModel', ['%s: the model carries no vocabulary (field vocab_words): train it with ' ...
                             'ee_train (..., ''vocab'', VOCAB) or pass the vocabulary itself'], who);
    end
    vocab = v.vocab_words;
    id = 'ee:badModel';
    what = 'the model''s vocab_words';
  else
    vocab = v;
    id = 'ee:badInput';
    what = 'the vocabulary';
  end
  if (! iscell (vocab) || ! isvector (vocab) || numel (vocab) < 4 ...
      || ! isequal (reshape (vocab(1:4), 1, []), specials))
    error (id, ['%s: a vocabulary is a 1 x V cell of words starting with [PAD] [UNK] [CLS] [SEP] ' ...
                '(as in datasets/*.mat or from ee_vocab)'], who);
  end
  try
    vocab = ee_check (who, what, vocab, 'words');
  catch err
    error (id, '%s', err.message);   # a model's words are the model's fault
  end
end
