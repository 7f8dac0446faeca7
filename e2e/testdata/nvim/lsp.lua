-- Drives `gotrace lsp` from Neovim (0.7 or later), headless: opens the
-- scripts in $DIR, waits for the diagnostics of d.bt, asks for completions
-- in k.bt and t.bt and a hover in d.bt, and writes what Neovim received to
-- $OUT as JSON. Run by e2e/lsp_nvim_test.go.
local dir, out, gt = os.getenv("DIR"), os.getenv("OUT"), os.getenv("GT")
local result = {}
local client = vim.lsp.start_client({ cmd = { gt, "lsp" }, name = "gotrace", root_dir = dir })
if not client then
  result.error = "the client did not start"
end

local function open(name)
  vim.cmd("edit " .. dir .. "/" .. name)
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client)
  return buf
end

local function request(buf, method, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }
  local res = vim.lsp.buf_request_sync(buf, method, params, 30000) or {}
  for _, r in pairs(res) do
    if r.result then
      return r.result
    end
  end
  return nil
end

local d = open("d.bt")
vim.wait(30000, function() return #vim.diagnostic.get(d) > 0 end, 20)
result.diagnostics = {}
for _, diag in ipairs(vim.diagnostic.get(d)) do
  table.insert(result.diagnostics, {
    lnum = diag.lnum, col = diag.col, end_lnum = diag.end_lnum, end_col = diag.end_col,
    severity = diag.severity, message = diag.message,
  })
end

local hover = request(d, "textDocument/hover", 0, 9)
result.hover = hover and hover.contents and hover.contents.value or ""

local function labels(res)
  local out = {}
  local items = res and (res.items or res) or {}
  for _, it in ipairs(items) do
    table.insert(out, it.label)
  end
  return out
end

local k = open("k.bt")
local kline = vim.api.nvim_buf_get_lines(k, 0, 1, false)[1]
result.kprobe_args = labels(request(k, "textDocument/completion", 0, #kline))

local t = open("t.bt")
local tline = vim.api.nvim_buf_get_lines(t, 0, 1, false)[1]
result.tracepoint_fields = labels(request(t, "textDocument/completion", 0, #tline))

local f = io.open(out, "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.lsp.stop_client(client)
vim.cmd("qa!")
