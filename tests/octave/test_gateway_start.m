## test_gateway_start: what every gateway checks before it reads its
## arguments, written once in mex/ (ee_mx_start, ee_mx_fn_gateway): too
## few arguments is ee:badInput with the gateway's usage line, a third
## output is ee:badInput naming the gateway (one output for
## ee_faithfulness), both for the model and the function handle forms;
## and a gateway that works after such a refusal (nothing of the refused
## call is left behind).
1;

%!function [id, msg] = caught (f)
%!  ## the identifier and message of the error f raises ('' if none)
%!  id = ''; msg = '';
%!  try
%!    f ();
%!  catch err
%!    id = err.identifier; msg = err.message;
%!  end
%!endfunction

%!function three_outputs (g, varargin)
%!  [a, b, c] = g (varargin{:});
%!endfunction

%!function two_outputs (g, varargin)
%!  [a, b] = g (varargin{:});
%!endfunction

%!test
%! ## too few arguments: the usage line, before anything is read
%! usage = {@ee_ig, {1}, 'usage: [A, info] = ee_ig(';
%!          @ee_sv, {1}, 'usage: [A, info] = ee_sv(';
%!          @ee_lime, {1}, 'usage: [A, info] = ee_lime(';
%!          @ee_occlusion, {1}, 'usage: [A, info] = ee_occlusion(';
%!          @ee_faithfulness, {1, 2}, 'usage: F = ee_faithfulness(';
%!          @ee_gradient, {1}, 'usage: [A, info] = ee_gradient(';
%!          @ee_predict, {1}, 'usage: [labels, logits] = ee_predict(';
%!          @ee_tokenize, {1}, 'usage: [X, info] = ee_tokenize(';
%!          @ee_explain, {1}, 'usage: [A, info] = ee_explain(';
%!          @ee_vocab, {}, 'usage: [V, counts] = ee_vocab('};
%! for k = 1:rows (usage)
%!   [id, msg] = caught (@() usage{k, 1} (usage{k, 2}{:}));
%!   assert (id, 'ee:badInput', func2str (usage{k, 1}));
%!   assert (! isempty (strfind (msg, usage{k, 3})), msg);
%! end

%!test
%! ## a third output: refused with the gateway's name, for a model struct
%! ## and for a function handle alike
%! vdir = fullfile (fileparts (which ('ee_ig')), '..', 'tests', 'vectors');
%! v = load (fullfile (vdir, 'transformer_tiny.mat'));
%! X = v.X(1:2, :);
%! f = @(z) [sum(z, 2), -sum(z, 2)];
%! Xf = [1 2 3; 0 1 0];
%! calls = {@ee_ig, {v.model, X}; @ee_ig, {f, Xf};
%!          @ee_sv, {v.model, X}; @ee_sv, {f, Xf};
%!          @ee_lime, {v.model, X}; @ee_lime, {f, Xf};
%!          @ee_occlusion, {v.model, X}; @ee_occlusion, {f, Xf};
%!          @ee_gradient, {v.model, X}; @ee_predict, {v.model, X};
%!          @ee_tokenize, {v.model, 'a b'}; @ee_vocab, {{'a b'}}};
%! for k = 1:rows (calls)
%!   name = func2str (calls{k, 1});
%!   [id, msg] = caught (@() three_outputs (calls{k, 1}, calls{k, 2}{:}));
%!   assert (id, 'ee:badInput', name);
%!   assert (! isempty (strfind (msg, sprintf ('%s returns at most two outputs', name))), msg);
%! end
%! ## ee_faithfulness returns one struct, in both forms
%! for args = {{v.model, X, zeros(size (X), 'single')}, {f, Xf, zeros(size (Xf))}}
%!   [id, msg] = caught (@() two_outputs (@ee_faithfulness, args{1}{:}));
%!   assert (id, 'ee:badInput');
%!   assert (! isempty (strfind (msg, 'ee_faithfulness returns one output (a struct)')), msg);
%! end
%! ## and the gateways work after the refusals
%! [A, info] = ee_ig (v.model, X, 'steps', 4, 'verbose', false);
%! assert (size (A), size (X));
%! assert (all (isfinite (A(:))));
%! assert (info.target, double (ee_predict (v.model, X)));
%! [A, info] = ee_sv (f, Xf, 'samples', 2, 'verbose', false);
%! assert (size (A), size (Xf));
%! assert (sum (A, 2), info.fx - info.fbaseline, 1e-9);
