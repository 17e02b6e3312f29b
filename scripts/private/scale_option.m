## scale = scale_option (who, scale): the 'scale' option of the text
## drawings (ee_heatmap, ee_plot_text) checked: 'each' or 'shared', or a
## positive number (the |value| drawn at full colour).
function scale = scale_option (who, scale)
  if (ischar (scale))
    scale = ee_check (who, '''scale''', scale, 'choice', {'each', 'shared'});
  else
    scale = ee_check (who, '''scale''', scale, 'positive');
  end
end
