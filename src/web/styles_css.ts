export const STYLES_CSS = `body { font-family: system-ui, sans-serif; }\n`;
