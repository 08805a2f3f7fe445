/**
 * @module
 * The test host's script, bundled for the browser when the test runs: an MCP host as a web
 * chat would be one. It connects an MCP client to the service over streamable HTTP, lists
 * the tools, and renders a tool's app (its `_meta.ui.resourceUri`, read with
 * `resources/read`) through `@modelcontextprotocol/ext-apps`'s own `AppBridge`, inside the
 * sandbox proxy (sandbox.html) on another origin. The bridge is given the client, so the
 * app's `tools/call` reaches the service. What the app asks of the host (`ui/message`,
 * `ui/update-model-context`, `ui/open-link`, sizes, logs) is recorded for the test, which
 * drives all this through `globalThis.testHost`.
 */
/// <reference lib="dom" />

import {
  AppBridge,
  getToolUiResourceUri,
  type McpUiHostContext,
  type McpUiResourceCsp,
  PostMessageTransport,
} from "npm:@modelcontextprotocol/ext-apps@2.0.4/app-bridge";
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
  type Tool,
} from "npm:@modelcontextprotocol/client@2.4.0";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** What the app asked of the host, in order. */
const record = {
  messages: [] as unknown[],
  modelContext: [] as unknown[],
  openLinks: [] as unknown[],
  logs: [] as unknown[],
  sizes: [] as unknown[],
  teardowns: 0,
  /** Each app rendered: its resource and the `_meta.ui.csp` sent to the proxy with it. */
  apps: [] as { uri: string; csp?: McpUiResourceCsp }[],
};

const HOST_CONTEXT: McpUiHostContext = {
  theme: "light",
  displayMode: "inline",
  availableDisplayModes: ["inline"],
  containerDimensions: { maxWidth: 760, maxHeight: 2000 },
  locale: "en-GB",
  timeZone: "Europe/Berlin",
  platform: "web",
  deviceCapabilities: { touch: false, hover: true },
  styles: {
    variables: {
      "--font-sans": "system-ui, sans-serif",
      "--border-radius-md": "8px",
      // A host's value that would load an image if the app used it as given.
      "--color-background-primary": "url(http://127.0.0.1:9/background.png)",
    } as NonNullable<McpUiHostContext["styles"]>["variables"],
  },
};

const params = new URL(location.href).searchParams;
const client = new Client(
  { name: "dcfs-test-host", version: "1.0.0" },
  {
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } },
    // The SDK's own negotiation: 2026-07-28 (server/discover) where the server serves it, or
    // with ?era=legacy, 2025-11-25 (initialize, then GET for the event stream: a 405).
    versionNegotiation: { mode: params.get("era") === "legacy" ? "legacy" : "auto" },
  },
);
await client.connect(new StreamableHTTPClientTransport(new URL(params.get("mcp")!)));
const { tools } = await client.listTools();

/** One rendered app: its frame and its bridge. */
interface Shown {
  iframe: HTMLIFrameElement;
  bridge: AppBridge;
}
let shown: Shown | undefined;

/** The app of `tool`, as `resources/read` gives it. */
async function appResource(
  tool: Tool,
): Promise<{ uri: string; html: string; csp?: McpUiResourceCsp }> {
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${tool.name} has no app`);
  const { contents } = await client.readResource({ uri });
  const content = contents[0];
  if (!content || !("text" in content) || content.mimeType !== APP_MIME_TYPE) {
    throw new Error(`${uri} is not an MCP App's HTML`);
  }
  const ui = (content._meta as { ui?: { csp?: McpUiResourceCsp } } | undefined)?.ui;
  return { uri, html: content.text, csp: ui?.csp };
}

/** A bridge whose handlers record what the app asks, the frame sized as the app says. */
function bridgeFor(iframe: HTMLIFrameElement, tool: Tool): AppBridge {
  const bridge = new AppBridge(
    client,
    { name: "dcfs-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { ...HOST_CONTEXT, toolInfo: { tool } } },
  );
  bridge.onmessage = (request) => {
    record.messages.push(request);
    return Promise.resolve({});
  };
  bridge.onupdatemodelcontext = (request) => {
    record.modelContext.push(request);
    return Promise.resolve({});
  };
  bridge.onopenlink = (request) => {
    record.openLinks.push(request);
    return Promise.resolve({ isError: true });
  };
  bridge.onloggingmessage = (message) => record.logs.push(message);
  bridge.onsizechange = (size) => {
    record.sizes.push(size);
    if (size.height !== undefined) iframe.style.height = `${Math.ceil(size.height)}px`;
  };
  return bridge;
}

/**
 * Renders the app of the tool `name` in a new sandbox frame (the one shown before is torn
 * down), resolving once the app has sent `ui/notifications/initialized`.
 */
async function render(name: string): Promise<void> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const resource = await appResource(tool);
  if (shown) {
    await shown.bridge.teardownResource({});
    record.teardowns++;
    await shown.bridge.close();
    shown.iframe.remove();
  }
  const iframe = document.createElement("iframe");
  iframe.title = tool.title ?? tool.name;
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  document.getElementById("app")!.append(iframe);
  const bridge = bridgeFor(iframe, tool);
  const initialized = new Promise<void>((resolve) => bridge.oninitialized = () => resolve());
  bridge.onsandboxready = () => {
    record.apps.push({ uri: resource.uri, csp: resource.csp });
    bridge.sendSandboxResourceReady({ html: resource.html, csp: resource.csp });
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  const sandbox = new URL(params.get("sandbox")!);
  sandbox.searchParams.set("host", location.origin);
  iframe.src = sandbox.href;
  await initialized;
  shown = { iframe, bridge };
  document.getElementById("call")!.textContent = name;
}

/** What the test calls, through `page.evaluate`. */
const testHost = {
  record,
  /** `tools/list` as the host got it. */
  tools,
  /** A tool called by the host's own client, as the model would call it. */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  },
  /** The model's call of `name`: its app rendered and sent the input, then the result. */
  async run(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    await render(name);
    await shown!.bridge.sendToolInput({ arguments: args });
    const result = await testHost.call(name, args);
    await shown!.bridge.sendToolResult(result);
    return result;
  },
  /** The app of `name` rendered and sent this input and this result (hostile ones too). */
  async show(name: string, args: Record<string, unknown>, result: CallToolResult): Promise<void> {
    await render(name);
    await shown!.bridge.sendToolInput({ arguments: args });
    await shown!.bridge.sendToolResult(result);
  },
};

Object.assign(globalThis, { testHost });
document.body.dataset.ready = "true";
