export const HOME_HTML =
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>DC Field Services</title><link rel="stylesheet" href="/assets/styles.css"></head><body><h1>DC Field Services</h1><script src="/assets/app.js" type="module"></script></body></html>\n`;
