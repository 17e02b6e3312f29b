## -*- texinfo -*-
## @deftypefn {} {[@var{v}, @var{hit}] =} f5_cached (@var{P}, @var{file}, @var{what}, @var{fn})
## The value cached in @var{file} (variable @code{v}), or @code{fn ()}
## computed and saved there atomically; @var{hit} says which.
## @end deftypefn
function [v, hit] = f5_cached (P, file, what, fn)
  hit = exist (file, 'file') == 2;
  if (hit)
    z = load (file);
    v = z.v;
    say (P, '%s: cached (%s)\n', what, file);
    return;
  end
  say (P, '%s: computing ...\n', what);
  t0 = tic ();
  v = fn ();
  ee_atomic_save (file, struct ('v', v));
  say (P, '%s: done in %.1f s -> %s\n', what, toc (t0), file);
end
