## -*- texinfo -*-
## @deftypefn {} {@var{fo} =} ee_explainer_fn_options (@var{explainer}, @var{options}, @var{what})
## The options of an attribution of a function handle (@code{ee_sv},
## @code{ee_ig} on @code{@@f}) that reproduce what @var{explainer} was
## trained on: @var{options} (a cell of name, value pairs, the caller's)
## followed by the players and absent values that
## @code{ee_train (@@f, @dots{})} recorded in
## @code{@var{explainer}.explains} (@qcode{'groups'}, @qcode{'baseline'},
## @qcode{'background'}, each only where it was given), so that a map
## computed with @var{fo} is comparable with the explainer's.  The
## explainer's come last: where @var{options} names one of them too, the
## explainer's wins (the gateways read the last one given).
##
## @var{explainer} empty: @var{fo} is @var{options}.  @var{what} names the
## argument in the error of a struct that does not come from
## @code{ee_train (@@f, @dots{})}, e.g.
## @qcode{"ee_convergence: 'explainer'"}.
##
## @example
## e = ee_train (@@f, X, 'sv', 'groups', g, 'options', @{'samples', 4@});
## A = ee_sv (@@f, X2, 'samples', 20, ee_explainer_fn_options (e, @{@}, 'mine')@{:@});
## @end example
## @seealso{ee_train, ee_convergence, ee_sv, ee_ig}
## @end deftypefn
function fo = ee_explainer_fn_options (explainer, options, what)
  if (nargin != 3)
    print_usage ();
  end
  if (! iscell (options))
    error ('ee:badInput', '%s: the options must be a cell of name, value pairs', what);
  end
  fo = options;
  if (isempty (explainer))
    return;
  end
  ## ee_train (@f, ...) writes explains.groups always (empty when not
  ## given); a classifier's explainer has no groups there
  if (! (isstruct (explainer) && isscalar (explainer) && isfield (explainer, 'explains') ...
         && isstruct (explainer.explains) && isfield (explainer.explains, 'groups')))
    error ('ee:badInput', '%s must come from ee_train (@f, ...)', what);
  end
  ex = explainer.explains;
  for nm = {'groups', 'baseline', 'background'}
    if (isfield (ex, nm{1}) && ! isempty (ex.(nm{1})))
      fo(end+1:end+2) = {nm{1}, ex.(nm{1})};
    end
  end
end

%!test
%! e.explains = struct ('groups', [1 1 2], 'baseline', [], 'background', [0 0 0; 1 1 1]);
%! fo = ee_explainer_fn_options (e, {'samples', 3}, 'x');
%! assert (fo, {'samples', 3, 'groups', [1 1 2], 'background', [0 0 0; 1 1 1]});
%!test
%! ## the explainer's come after the caller's (the last one given wins)
%! e.explains = struct ('groups', [], 'baseline', [0.5 0.5], 'background', []);
%! fo = ee_explainer_fn_options (e, {'baseline', 0}, 'x');
%! assert (fo, {'baseline', 0, 'baseline', [0.5 0.5]});
%!test
%! ## no explainer: the caller's options unchanged
%! assert (ee_explainer_fn_options ([], {'seed', 2}, 'x'), {'seed', 2});
%! assert (ee_explainer_fn_options ([], {}, 'x'), {});
%!test
%! ## a real explainer of a function handle: its groups and background
%! f = @(z) [z(:, 1) + 2 * z(:, 2) - z(:, 3), -z(:, 1)];
%! X = [1 2 3; 0 1 0; 2 2 1; 1 0 1];
%! g = [1 1 2];
%! e = ee_train (f, X, 'sv', 'groups', g, 'background', zeros (1, 3), 'options', {'samples', 2}, ...
%!               'hidden', [], 'epochs', 2, 'verbose', false);
%! fo = ee_explainer_fn_options (e, {}, 'x');
%! assert (fo(1:2:end), {'groups', 'background'});
%! assert (fo{2}, g);
%! assert (fo{4}, zeros (1, 3));
%!error <x must come from ee_train \(@f, \.\.\.\)> ee_explainer_fn_options (struct ('a', 1), {}, 'x')
%!error <'model'.explainer must come from ee_train> ee_explainer_fn_options (struct ('explains', struct ('method', 'sv')), {}, '''model''.explainer')
%!error <options must be a cell> ee_explainer_fn_options ([], 'samples', 'x')
%!error <Invalid call> ee_explainer_fn_options ([], {})
