export const APP_JS = `// placeholder\n`;
