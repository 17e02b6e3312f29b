## vocab = ee_vocab_of (vocab_or_model): the vocabulary cell of a
## vocabulary or of a model that carries one (vocab_words), checked: a
## cell of char rows starting with the four special tokens.  The scripts
## that show words (ee_detokenize, ee_heatmap, ee_plot_text) share it.
function vocab = ee_vocab_of (v)
  specials = {'[PAD]', '[UNK]', '[CLS]', '[SEP]'};
  if (isstruct (v) && isscalar (v))
    if (! isfield (v, 'vocab_words'))
      error ('ee:badModel', ['the model carries no vocabulary (field vocab_words): train it with ' ...
                             'ee_train (..., ''vocab'', VOCAB) or pass the vocabulary itself']);
    end
    vocab = v.vocab_words;
    id = 'ee:badModel';
  else
    vocab = v;
    id = 'ee:badInput';
  end
  if (! iscellstr (vocab) || ! isvector (vocab) || numel (vocab) < 4 ...
      || ! isequal (reshape (vocab(1:4), 1, []), specials))
    error (id, ['a vocabulary is a 1 x V cell of words starting with [PAD] [UNK] [CLS] [SEP] ' ...
                '(as in datasets/*.mat or from ee_vocab)']);
  end
  vocab = reshape (vocab, 1, []);
end
