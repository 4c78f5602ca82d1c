-- GitHub's math syntax for pandoc's gfm reader (pandoc before 3.1 reads it as code):
-- a ```math fence is display math, $`...`$ is inline math.

function CodeBlock(block)
  if block.classes[1] == "math" then
    return pandoc.Para({pandoc.Math("DisplayMath", block.text)})
  end
end

function Inlines(inlines)
  local out = pandoc.List()
  local i = 1
  while i <= #inlines do
    local a, b, c = inlines[i], inlines[i + 1], inlines[i + 2]
    if a.t == "Str" and a.text:sub(-1) == "$" and b and b.t == "Code"
        and c and c.t == "Str" and c.text:sub(1, 1) == "$" then
      if #a.text > 1 then out:insert(pandoc.Str(a.text:sub(1, -2))) end
      out:insert(pandoc.Math("InlineMath", b.text))
      if #c.text > 1 then
        -- what follows the closing $ may open the next formula ("$\u{a0}SiLU$" after a
        -- no-break space): it is read again as the next text
        inlines[i + 2] = pandoc.Str(c.text:sub(2))
        i = i + 2
      else
        i = i + 3
      end
    else
      out:insert(a)
      i = i + 1
    end
  end
  return out
end
