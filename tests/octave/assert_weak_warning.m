## -*- texinfo -*-
## @deftypefn {} {} assert_weak_warning (@var{call})
## Asserts that @var{call} () raises the warning ee:weakExplainer: the
## warning is turned into an error for the call alone (a disabled warning
## would not reach lastwarn), and its id is compared.
## @end deftypefn
function assert_weak_warning (call)
  old = warning ('query', 'ee:weakExplainer');
  warning ('error', 'ee:weakExplainer');
  id = '';
  try
    call ();
  catch err
    id = err.identifier;
  end
  warning (old.state, 'ee:weakExplainer');
  assert (id, 'ee:weakExplainer');
end
