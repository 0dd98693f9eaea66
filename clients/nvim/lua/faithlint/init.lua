-- faithlint: language-server client for Neovim.
--
--   require("faithlint").setup{
--     cmd = { "python3", "-m", "faithlint", "serve" },
--     filetypes = { "markdown", "text" },
--     settings = { model = nil, debounce = 300, select = { "FL" }, fail_on = "warning" },
--     root_markers = { "faithlint.toml", "pyproject.toml", ".git" },
--   }
--
-- Uses vim.lsp.start() on Neovim >= 0.8 and falls back to vim.lsp.start_client() +
-- vim.lsp.buf_attach_client() on Neovim 0.7. `settings` is a flat table of faithlint
-- settings: it is sent as initializationOptions and answered for workspace/configuration
-- requests of the section "faithlint".

local M = {}

local NAME = "faithlint"
local SECTION = "faithlint"

local uv = vim.uv or vim.loop
-- Neovim 0.11 turned client fields into methods (client:request()); 0.7-0.10 use client.request().
local METHODS = vim.fn.has("nvim-0.11") == 1
-- Neovim 0.8+ sends workspace/didChangeConfiguration with `settings` right after initialize.
local PUSHES_SETTINGS = vim.fn.has("nvim-0.8") == 1

local function client_call(client, method, ...)
  if METHODS then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function default_python()
  if vim.fn.has("win32") == 1 then
    return "python"
  end
  if vim.fn.executable("python3") == 1 or vim.fn.executable("python") == 0 then
    return "python3"
  end
  return "python"
end

M.defaults = {
  name = NAME,
  cmd = nil, -- default: { <python3 or python>, "-m", "faithlint", "serve" }
  filetypes = { "markdown", "text" },
  settings = {},
  init_options = nil, -- default: settings
  root_markers = { "faithlint.toml", "pyproject.toml", ".git" },
  single_file_support = true, -- no root marker found: use the file's folder as the root
  autostart = true,
  on_attach = nil,
  on_init = nil,
  on_exit = nil,
  capabilities = nil,
  handlers = nil,
  cmd_env = nil,
  commands = true, -- define :FaithlintRecheck, :FaithlintRecheckWorkspace, :FaithlintStatus, :FaithlintRestart
}

M.config = nil

-- Legacy (Neovim 0.7) client bookkeeping: root_dir -> client id.
local legacy_clients = {}

local function notify(msg, level)
  vim.notify("faithlint: " .. msg, level or vim.log.levels.INFO)
end

local function is_list(t)
  if vim.islist then
    return vim.islist(t)
  end
  return vim.tbl_islist(t)
end

--- A copy of `t` that JSON-encodes as an object even when empty.
local function as_object(t)
  if t == nil or (type(t) == "table" and next(t) == nil) then
    return vim.empty_dict()
  end
  return vim.deepcopy(t)
end

--- Accept both `settings = { model = ... }` and `settings = { faithlint = { model = ... } }`.
local function flat_settings(settings)
  settings = settings or {}
  if type(settings[SECTION]) == "table" and vim.tbl_count(settings) == 1 then
    return settings[SECTION]
  end
  return settings
end

local function path_exists(path)
  return uv.fs_stat(path) ~= nil
end

--- The nearest folder upwards from `path` that holds one of `markers`, or nil.
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  while dir and dir ~= "" do
    for _, marker in ipairs(markers or {}) do
      if path_exists(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

local function buffer_path(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  return name
end

--- The client config for a buffer (nil when the buffer should not get a client).
function M.client_config(bufnr)
  local cfg = M.config or M.defaults
  local path = buffer_path(bufnr)
  if not path then
    return nil
  end
  local root = M.find_root(path, cfg.root_markers)
  if not root then
    if not cfg.single_file_support then
      return nil
    end
    root = vim.fn.fnamemodify(path, ":p:h")
  end
  local settings = flat_settings(cfg.settings)
  local init_options = cfg.init_options
  if init_options == nil then
    init_options = settings
  end
  return {
    name = cfg.name,
    cmd = vim.deepcopy(cfg.cmd),
    cmd_env = cfg.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = as_object(init_options),
    settings = { [SECTION] = as_object(settings) },
    on_attach = cfg.on_attach,
    on_init = function(client, result)
      -- Push the settings once, for servers that read workspace/didChangeConfiguration rather
      -- than asking with workspace/configuration. Neovim >= 0.8 does this itself after init.
      if not PUSHES_SETTINGS then
        client_call(client, "notify", "workspace/didChangeConfiguration", { settings = client.config.settings })
      end
      if cfg.on_init then
        cfg.on_init(client, result)
      end
    end,
    on_exit = cfg.on_exit,
    capabilities = cfg.capabilities,
    handlers = cfg.handlers,
  }
end

local function legacy_start(config, bufnr)
  local id = legacy_clients[config.root_dir]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client_call(client, "is_stopped") then
    id = vim.lsp.start_client(config)
    if not id then
      notify("could not start " .. table.concat(config.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    legacy_clients[config.root_dir] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Start (or reuse) the server for `bufnr` and attach it; returns the client id or nil.
function M.start(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local config = M.client_config(bufnr)
  if not config then
    return nil
  end
  if vim.lsp.start then -- Neovim >= 0.8
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  return legacy_start(config, bufnr)
end

--- faithlint clients (optionally only those attached to `bufnr`).
function M.clients(bufnr)
  if bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local name = (M.config or M.defaults).name
  if vim.lsp.get_clients then -- Neovim >= 0.10
    return vim.lsp.get_clients({ name = name, bufnr = bufnr })
  end
  local out = {}
  local all = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, client in pairs(all) do
    if client.name == name then
      table.insert(out, client)
    end
  end
  return out
end

local function filetype_matches(ft)
  for _, want in ipairs((M.config or M.defaults).filetypes) do
    if ft == want then
      return true
    end
  end
  return false
end

--- Run a server command (`faithlint.recheckDocument`, ...) on the clients of the current buffer.
function M.execute(command, arguments, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local clients = M.clients(bufnr)
  if #clients == 0 then
    clients = M.clients()
  end
  if #clients == 0 then
    notify("no faithlint server is running", vim.log.levels.WARN)
    return
  end
  for _, client in ipairs(clients) do
    client_call(client, "request", "workspace/executeCommand",
      { command = command, arguments = arguments or {} },
      function(err, result)
        if err then
          notify(command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        elseif on_result then
          on_result(result, client)
        end
      end, bufnr)
  end
end

function M.recheck_document(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  M.execute("faithlint.recheckDocument", { vim.uri_from_bufnr(bufnr) })
end

function M.recheck_workspace()
  M.execute("faithlint.recheckWorkspace", {})
end

function M.status()
  M.execute("faithlint.status", {}, function(result)
    local text = type(result) == "string" and result or vim.inspect(result)
    notify(text)
  end)
end

--- Stop every faithlint client and start again for the loaded matching buffers.
function M.restart()
  local clients = M.clients()
  for _, client in ipairs(clients) do
    client_call(client, "stop")
  end
  legacy_clients = {}
  local timer = uv.new_timer()
  local waited = 0
  timer:start(100, 100, vim.schedule_wrap(function()
    waited = waited + 100
    local alive = false
    for _, client in ipairs(clients) do
      if not client_call(client, "is_stopped") then
        alive = true
      end
    end
    if alive and waited < 3000 then
      return
    end
    timer:stop()
    timer:close()
    for _, client in ipairs(clients) do
      if not client_call(client, "is_stopped") then
        client_call(client, "stop", true)
      end
    end
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and filetype_matches(vim.bo[buf].filetype) then
        M.start(buf)
      end
    end
  end))
end

local function define_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("FaithlintRecheck", function() M.recheck_document(0) end, { desc = "faithlint: check this document again" })
  cmd("FaithlintRecheckWorkspace", M.recheck_workspace, { desc = "faithlint: check the workspace again" })
  cmd("FaithlintStatus", M.status, { desc = "faithlint: server status" })
  cmd("FaithlintRestart", M.restart, { desc = "faithlint: restart the language server" })
end

function M.setup(opts)
  opts = opts or {}
  for key, kind in pairs({ cmd = "table", filetypes = "table", settings = "table", root_markers = "table",
                           init_options = "table", on_attach = "function", on_init = "function",
                           on_exit = "function" }) do
    if opts[key] ~= nil and type(opts[key]) ~= kind then
      error(string.format("faithlint.setup: %s must be a %s, got %s", key, kind, type(opts[key])))
    end
  end
  local cfg = vim.tbl_extend("force", vim.deepcopy(M.defaults), opts)
  if opts.settings then
    cfg.settings = opts.settings -- keep list/empty-dict values exactly as given
  end
  if not cfg.cmd or #cfg.cmd == 0 then
    cfg.cmd = { default_python(), "-m", "faithlint", "serve" }
  end
  if not is_list(cfg.cmd) then
    error("faithlint.setup: cmd must be a list such as { 'python3', '-m', 'faithlint', 'serve' }")
  end
  M.config = cfg

  local group = vim.api.nvim_create_augroup("faithlint", { clear = true })
  if cfg.autostart then
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      pattern = cfg.filetypes,
      callback = function(args)
        M.start(args.buf)
      end,
      desc = "faithlint: start the language server",
    })
    -- Buffers already open when setup() runs (e.g. a plugin manager loading lazily).
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and filetype_matches(vim.bo[buf].filetype) then
        M.start(buf)
      end
    end
  end
  if cfg.commands then
    define_commands()
  end
  return M
end

return M
