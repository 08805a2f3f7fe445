/**
 * @module
 * The home page stylesheet (`/assets/styles.css`). System fonts only, mobile first,
 * no external resources. Kept free of backticks, `${` and backslashes.
 */

export const STYLES_CSS = `/* DC Field Services: home page */

:root {
  --ink: #0f1b2d;
  --ink-2: #33445a;
  --muted: #5a6b80;
  --line: #d9e1ea;
  --line-strong: #b8c4d2;
  --bg: #ffffff;
  --bg-alt: #f3f6fa;
  --surface: #ffffff;
  --navy: #0a1b2e;
  --navy-2: #10304f;
  --accent: #0b5cad;
  --accent-hover: #084a8c;
  --accent-soft: #e7f0fb;
  --focus: #f5b400;
  --ok: #0d6b41;
  --ok-bg: #e9f7ef;
  --ok-line: #a7dcbf;
  --warn: #8a4b00;
  --warn-bg: #fff6e5;
  --warn-line: #f1cf8b;
  --err: #b42318;
  --err-bg: #fdeeec;
  --err-line: #f2b8b2;
  --info: #1e4fb8;
  --info-bg: #ecf2fe;
  --info-line: #b5c9f3;
  --radius: 10px;
  --radius-lg: 14px;
  --shadow: 0 1px 2px rgba(15, 27, 45, 0.06), 0 4px 16px rgba(15, 27, 45, 0.06);
  --font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans",
    "Liberation Sans", sans-serif;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono",
    monospace;
}

*,
*::before,
*::after {
  box-sizing: border-box;
}

html {
  -webkit-text-size-adjust: 100%;
  text-size-adjust: 100%;
  scroll-behavior: smooth;
  scroll-padding-top: 16px;
}

@media (prefers-reduced-motion: reduce) {
  html {
    scroll-behavior: auto;
  }
  *,
  *::before,
  *::after {
    transition: none !important;
  }
}

body {
  margin: 0;
  font-family: var(--font);
  font-size: 1rem;
  line-height: 1.6;
  color: var(--ink);
  background: var(--bg);
  overflow-wrap: break-word;
}

h1,
h2,
h3 {
  line-height: 1.2;
  margin: 0 0 0.5em;
  letter-spacing: -0.01em;
}

h1 {
  font-size: clamp(2rem, 5.5vw, 3.1rem);
  font-weight: 750;
  letter-spacing: -0.02em;
}

h2 {
  font-size: clamp(1.5rem, 3.6vw, 2rem);
  font-weight: 700;
}

h3 {
  font-size: 1.125rem;
  font-weight: 650;
}

p {
  margin: 0 0 1em;
}

a {
  color: var(--accent);
  text-underline-offset: 0.15em;
}

a:hover {
  color: var(--accent-hover);
}

code,
pre {
  font-family: var(--mono);
  font-size: 0.9em;
}

:focus-visible {
  outline: 3px solid var(--focus);
  outline-offset: 2px;
  border-radius: 4px;
}

main:focus {
  outline: none;
}

[hidden] {
  display: none !important;
}

.visually-hidden {
  position: absolute !important;
  width: 1px;
  height: 1px;
  padding: 0;
  margin: -1px;
  overflow: hidden;
  clip: rect(0 0 0 0);
  white-space: nowrap;
  border: 0;
}

.skip-link {
  position: absolute;
  left: 12px;
  top: -60px;
  z-index: 10;
  padding: 10px 16px;
  background: var(--surface);
  color: var(--ink);
  border-radius: var(--radius);
  box-shadow: var(--shadow);
  font-weight: 600;
}

.skip-link:focus {
  top: 12px;
}

.wrap {
  width: 100%;
  max-width: 1160px;
  margin: 0 auto;
  padding: 0 20px;
}

.muted {
  color: var(--muted);
}

/* ---- header ---- */

.site-header {
  background: var(--navy);
  color: #fff;
  border-bottom: 1px solid rgba(255, 255, 255, 0.08);
}

.header-inner {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 4px 24px;
  padding-top: 12px;
  padding-bottom: 4px;
}

.brand {
  display: inline-flex;
  align-items: center;
  gap: 10px;
  color: #fff;
  text-decoration: none;
  font-weight: 700;
  font-size: 1.075rem;
  letter-spacing: -0.01em;
  padding: 6px 0;
}

.brand:hover {
  color: #fff;
}

.brand-mark {
  width: 30px;
  height: 30px;
  color: var(--accent);
  flex: none;
}

.site-nav {
  width: 100%;
  overflow-x: auto;
  scrollbar-width: none;
}

.site-nav::-webkit-scrollbar {
  display: none;
}

.site-nav ul {
  display: flex;
  gap: 4px;
  margin: 0;
  padding: 0;
  list-style: none;
  white-space: nowrap;
}

.site-nav a {
  display: inline-block;
  padding: 10px 9px;
  color: #c9d6e6;
  text-decoration: none;
  font-size: 0.95rem;
  font-weight: 500;
  border-radius: 8px;
}

.site-nav li:first-child a {
  padding-left: 0;
}

@media (max-width: 419px) {
  .site-nav a {
    padding: 10px 7px;
    font-size: 0.875rem;
  }
}

.site-nav a:hover {
  color: #fff;
  background: rgba(255, 255, 255, 0.06);
}

@media (min-width: 760px) {
  .site-nav a {
    padding: 10px 12px;
  }
  .header-inner {
    flex-wrap: nowrap;
    padding-top: 10px;
    padding-bottom: 10px;
  }
  .site-nav {
    width: auto;
  }
  .site-nav li:first-child a {
    padding-left: 12px;
  }
}

/* ---- hero ---- */

.hero {
  color: #e8eef6;
  background:
    linear-gradient(rgba(255, 255, 255, 0.035) 1px, transparent 1px) 0 0 / 100% 28px,
    radial-gradient(ellipse at 85% 0%, rgba(11, 92, 173, 0.45), transparent 60%),
    linear-gradient(160deg, var(--navy) 0%, var(--navy-2) 100%);
  padding: 48px 0 56px;
}

.hero-grid {
  display: grid;
  gap: 36px;
}

.hero h1 {
  color: #fff;
  max-width: 16em;
}

.eyebrow {
  display: inline-block;
  margin-bottom: 14px;
  font-size: 0.8rem;
  font-weight: 700;
  text-transform: uppercase;
  letter-spacing: 0.12em;
  color: #8fc1ff;
}

.lead {
  font-size: 1.1rem;
  color: #c7d4e4;
  max-width: 38em;
}

.cta-row {
  display: flex;
  flex-wrap: wrap;
  gap: 12px;
  margin-top: 26px;
}

.cta-row .btn {
  flex: 1 1 auto;
}

@media (min-width: 560px) {
  .cta-row .btn {
    flex: 0 0 auto;
  }
}

.assurances {
  display: grid;
  gap: 12px;
  margin: 0;
  padding: 0;
  list-style: none;
}

.assurances li {
  padding: 16px 18px 14px;
  border: 1px solid rgba(255, 255, 255, 0.12);
  border-left: 3px solid #1fb57a;
  border-radius: var(--radius);
  background: rgba(255, 255, 255, 0.045);
}

.assurance-title {
  font-size: 1rem;
  font-weight: 650;
  color: #fff;
  margin-bottom: 4px;
}

.assurances p {
  margin: 0;
  font-size: 0.94rem;
  color: #b9c8da;
}

@media (min-width: 560px) {
  .assurances {
    grid-template-columns: 1fr 1fr;
  }
}

@media (min-width: 980px) {
  .hero {
    padding: 80px 0 88px;
  }
  .hero-grid {
    grid-template-columns: 1.15fr 1fr;
    align-items: center;
    gap: 56px;
  }
}

/* ---- buttons ---- */

.btn {
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 8px;
  min-height: 44px;
  padding: 10px 20px;
  border: 1px solid transparent;
  border-radius: 8px;
  font: inherit;
  font-weight: 600;
  font-size: 1rem;
  line-height: 1.2;
  text-decoration: none;
  cursor: pointer;
  transition: background-color 0.15s, border-color 0.15s, color 0.15s;
}

.btn-primary {
  background: var(--accent);
  color: #fff;
}

.btn-primary:hover {
  background: var(--accent-hover);
  color: #fff;
}

.btn-outline-light {
  color: #fff;
  border-color: rgba(255, 255, 255, 0.45);
  background: transparent;
}

.btn-outline-light:hover {
  color: #fff;
  background: rgba(255, 255, 255, 0.08);
  border-color: #fff;
}

.btn-secondary {
  background: var(--surface);
  color: var(--accent);
  border-color: var(--line-strong);
}

.btn-secondary:hover {
  border-color: var(--accent);
  background: var(--accent-soft);
}

.btn-small {
  min-height: 36px;
  padding: 6px 14px;
  font-size: 0.92rem;
}

.btn:disabled {
  opacity: 0.6;
  cursor: progress;
}

/* ---- sections ---- */

.section {
  padding: 56px 0;
}

.section-alt {
  background: var(--bg-alt);
  border-top: 1px solid #e6ecf2;
  border-bottom: 1px solid #e6ecf2;
}

.section-head {
  max-width: 46em;
  margin-bottom: 28px;
}

.section-head p {
  color: var(--ink-2);
}

.split {
  display: grid;
  gap: 24px;
}

.split-intro p {
  color: var(--ink-2);
  max-width: 34em;
}

.split-intro .muted {
  color: var(--muted);
  font-size: 0.95rem;
}

@media (min-width: 900px) {
  .section {
    padding: 80px 0;
  }
  .split {
    grid-template-columns: 1fr 1.35fr;
    gap: 56px;
    align-items: start;
  }
}

.card {
  background: var(--surface);
  border: 1px solid var(--line);
  border-radius: var(--radius-lg);
  box-shadow: var(--shadow);
  padding: 20px;
  min-width: 0;
}

@media (min-width: 640px) {
  .card {
    padding: 28px;
  }
}

.quote-layout {
  display: grid;
  gap: 24px;
}

@media (min-width: 1000px) {
  .quote-layout {
    grid-template-columns: minmax(0, 1fr) 300px;
    align-items: start;
    gap: 32px;
  }
  .side-panel {
    position: sticky;
    top: 24px;
  }
}

.side-panel {
  padding: 22px 22px 8px;
  background: var(--bg-alt);
  border: 1px solid var(--line);
  border-radius: var(--radius-lg);
}

.steps {
  margin: 14px 0 0;
  padding: 0;
  list-style: none;
  counter-reset: step;
}

.steps li {
  position: relative;
  padding: 0 0 16px 42px;
  font-size: 0.95rem;
  color: var(--ink-2);
  counter-increment: step;
}

.steps li::before {
  content: counter(step);
  position: absolute;
  left: 0;
  top: 0;
  width: 28px;
  height: 28px;
  line-height: 28px;
  text-align: center;
  font-weight: 700;
  font-size: 0.875rem;
  color: #fff;
  background: var(--accent);
  border-radius: 50%;
}

.steps li:not(:last-child)::after {
  content: "";
  position: absolute;
  left: 13px;
  top: 32px;
  bottom: 4px;
  width: 2px;
  background: var(--line);
}

.steps strong {
  display: block;
  color: var(--ink);
}

.status {
  color: var(--muted);
  margin: 0;
}

/* ---- service catalog ---- */

.service-grid {
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 270px), 1fr));
  gap: 16px;
  margin: 0;
  padding: 0;
  list-style: none;
}

.service-card {
  display: flex;
  flex-direction: column;
  padding: 20px;
  background: var(--surface);
  border: 1px solid var(--line);
  border-radius: var(--radius-lg);
  box-shadow: var(--shadow);
}

.service-head {
  display: flex;
  align-items: flex-start;
  justify-content: space-between;
  gap: 12px;
}

.service-head h3 {
  margin: 0 0 8px;
}

.tag {
  flex: none;
  padding: 2px 9px;
  font-size: 0.75rem;
  font-weight: 600;
  text-transform: capitalize;
  color: var(--accent);
  background: var(--accent-soft);
  border-radius: 999px;
}

.service-desc {
  color: var(--ink-2);
  font-size: 0.95rem;
  flex: 1;
}

.price-list {
  margin: 0 0 14px;
  padding: 4px 0 0;
  border-top: 1px solid var(--line);
}

.price-list > div {
  display: flex;
  align-items: baseline;
  justify-content: space-between;
  gap: 12px;
  padding: 6px 0;
  border-bottom: 1px dashed var(--line);
}

.price-list dt {
  font-size: 0.875rem;
  color: var(--muted);
}

.price-list dd {
  margin: 0;
  font-weight: 650;
  font-variant-numeric: tabular-nums;
  white-space: nowrap;
}

@media (min-width: 1000px) {
  .service-grid {
    grid-template-columns: 1fr 1fr;
  }
  .service-card {
    display: grid;
    grid-template-columns: minmax(0, 1fr) 200px;
    grid-template-rows: auto 1fr auto;
    grid-template-areas: "head price" "desc price" "link price";
    column-gap: 24px;
  }
  .service-head {
    grid-area: head;
  }
  .service-desc {
    grid-area: desc;
    margin-bottom: 8px;
  }
  .card-link {
    grid-area: link;
  }
  .price-list {
    grid-area: price;
    align-self: start;
    margin: 0;
    padding: 0 0 0 20px;
    border-top: 0;
    border-left: 1px solid var(--line);
  }
  .price-list > div:last-child {
    border-bottom: 0;
  }
}

.card-link {
  align-self: flex-start;
  font-weight: 600;
  text-decoration: none;
  padding: 4px 0;
}

.card-link::after {
  content: " →";
}

.card-link:hover {
  text-decoration: underline;
}

/* ---- forms ---- */

.form fieldset {
  border: 0;
  padding: 0;
  margin: 0 0 24px;
  min-width: 0;
}

.form legend {
  width: 100%;
  padding: 0 0 8px;
  margin-bottom: 16px;
  font-weight: 700;
  font-size: 0.8rem;
  text-transform: uppercase;
  letter-spacing: 0.08em;
  color: var(--muted);
  border-bottom: 1px solid var(--line);
}

.form-grid {
  display: grid;
  gap: 16px;
}

@media (min-width: 600px) {
  .form-grid {
    grid-template-columns: 1fr 1fr;
    gap: 18px 20px;
  }
  .form-grid-coverage {
    grid-template-columns: 1fr 12rem;
  }
  .span-2 {
    grid-column: 1 / -1;
  }
}

.field {
  display: flex;
  flex-direction: column;
  min-width: 0;
}

.field label {
  font-weight: 600;
  font-size: 0.95rem;
  margin-bottom: 6px;
}

.optional {
  font-weight: 400;
  font-size: 0.85rem;
  color: var(--muted);
}

.optional::before {
  content: "(";
}

.optional::after {
  content: ")";
}

.req {
  color: var(--err);
  font-weight: 700;
}

.form-note {
  font-size: 0.875rem;
  color: var(--muted);
  margin-bottom: 16px;
}

.hint {
  margin: 4px 0 0;
  font-size: 0.85rem;
  color: var(--muted);
}

input[type="text"],
input[type="email"],
input[type="tel"],
input[type="number"],
input[type="date"],
input[type="time"],
select,
textarea {
  width: 100%;
  min-height: 44px;
  padding: 9px 12px;
  font: inherit;
  font-size: 1rem;
  color: var(--ink);
  background: #fff;
  border: 1px solid var(--line-strong);
  border-radius: 8px;
  transition: border-color 0.15s, box-shadow 0.15s;
}

textarea {
  resize: vertical;
  min-height: 110px;
  line-height: 1.5;
}

select {
  appearance: none;
  padding-right: 36px;
  background-image:
    linear-gradient(45deg, transparent 50%, var(--muted) 50%),
    linear-gradient(135deg, var(--muted) 50%, transparent 50%);
  background-position: calc(100% - 19px) 50%, calc(100% - 14px) 50%;
  background-size: 5px 5px, 5px 5px;
  background-repeat: no-repeat;
}

input::placeholder,
textarea::placeholder {
  color: #8593a5;
}

input:hover,
select:hover,
textarea:hover {
  border-color: #94a3b6;
}

input:focus,
select:focus,
textarea:focus {
  border-color: var(--accent);
  box-shadow: 0 0 0 3px rgba(11, 92, 173, 0.18);
  outline: none;
}

input:focus-visible,
select:focus-visible,
textarea:focus-visible {
  outline: 3px solid var(--focus);
  outline-offset: 1px;
}

[aria-invalid="true"] {
  border-color: var(--err) !important;
  background-color: #fffafa;
}

[aria-invalid="true"]:focus {
  box-shadow: 0 0 0 3px rgba(180, 35, 24, 0.18);
}

.field-error {
  margin: 6px 0 0;
  font-size: 0.875rem;
  font-weight: 600;
  color: var(--err);
}

.field-error::before {
  content: "! ";
  display: inline-block;
  width: 1.2em;
  height: 1.2em;
  margin-right: 6px;
  line-height: 1.2em;
  text-align: center;
  font-size: 0.8em;
  color: #fff;
  background: var(--err);
  border-radius: 50%;
}

.field-check {
  display: grid;
  grid-template-columns: auto 1fr;
  align-items: center;
  column-gap: 10px;
}

.field-check input {
  width: 22px;
  height: 22px;
  margin: 0;
  accent-color: var(--accent);
}

.field-check label {
  margin: 0;
}

.field-check .hint,
.field-check .field-error {
  grid-column: 2;
}

.form-actions {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 12px 20px;
  margin-top: 20px;
}

.form-fineprint {
  margin: 0;
  font-size: 0.875rem;
  color: var(--muted);
}

/* ---- results and notices ---- */

.result:not(:empty) {
  margin-top: 20px;
}

.notice {
  padding: 16px 18px;
  border: 1px solid var(--line);
  border-left-width: 4px;
  border-radius: var(--radius);
  background: var(--bg-alt);
}

.notice > :last-child {
  margin-bottom: 0;
}

.notice-title {
  font-weight: 700;
  font-size: 1.05rem;
  margin-bottom: 8px;
}

.notice-success {
  background: var(--ok-bg);
  border-color: var(--ok-line);
  border-left-color: var(--ok);
}

.notice-success .notice-title {
  color: var(--ok);
}

.notice-warn {
  background: var(--warn-bg);
  border-color: var(--warn-line);
  border-left-color: var(--warn);
}

.notice-warn .notice-title {
  color: var(--warn);
}

.notice-error {
  background: var(--err-bg);
  border-color: var(--err-line);
  border-left-color: var(--err);
}

.notice-error .notice-title {
  color: var(--err);
}

.notice-info {
  background: var(--info-bg);
  border-color: var(--info-line);
  border-left-color: var(--info);
}

.notice-info .notice-title {
  color: var(--info);
}

.notice-neutral {
  border-left-color: var(--muted);
}

.facts {
  display: flex;
  flex-wrap: wrap;
  gap: 10px 36px;
  margin: 0 0 14px;
}

.facts > div {
  min-width: 0;
  max-width: 100%;
}

.facts dt {
  font-size: 0.75rem;
  font-weight: 600;
  text-transform: uppercase;
  letter-spacing: 0.06em;
  color: var(--muted);
}

.facts dd {
  margin: 0;
  font-weight: 600;
  overflow-wrap: anywhere;
}

.request-id {
  display: inline-block;
  padding: 1px 6px;
  font-size: 0.95rem;
  background: rgba(255, 255, 255, 0.8);
  border: 1px solid var(--ok-line);
  border-radius: 6px;
  overflow-wrap: anywhere;
}

.status-code {
  font-size: 0.8rem;
  font-weight: 400;
  color: var(--muted);
}

.small-title {
  margin: 0 0 6px;
  font-size: 0.8rem;
  font-weight: 700;
  text-transform: uppercase;
  letter-spacing: 0.06em;
  color: var(--ink-2);
}

.chips {
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  margin: 0 0 16px;
  padding: 0;
  list-style: none;
}

.chips li {
  padding: 3px 10px;
  font-size: 0.85rem;
  background: #fff;
  border: 1px solid var(--ok-line);
  border-radius: 999px;
}

.nearest-list,
.choice-list,
.issue-list {
  margin: 0;
  padding: 0;
  list-style: none;
}

.nearest-list li {
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  gap: 0 16px;
  padding: 8px 0;
  border-top: 1px solid var(--warn-line);
}

.nearest-city {
  font-weight: 600;
}

.nearest-meta {
  color: var(--ink-2);
  font-size: 0.92rem;
  font-variant-numeric: tabular-nums;
}

.choice-list li {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 10px;
  margin-bottom: 8px;
}

.badge {
  padding: 1px 8px;
  font-size: 0.78rem;
  font-weight: 600;
  color: var(--muted);
  background: #fff;
  border: 1px solid var(--line);
  border-radius: 999px;
}

.badge-ok {
  color: var(--ok);
  border-color: var(--ok-line);
}

.issue-list li {
  position: relative;
  padding-left: 16px;
  margin-bottom: 4px;
}

.issue-list li::before {
  content: "";
  position: absolute;
  left: 2px;
  top: 0.7em;
  width: 6px;
  height: 6px;
  border-radius: 50%;
  background: var(--err);
}

.issue-list a {
  color: var(--err);
}

.estimate {
  margin: 4px 0 14px;
  padding: 14px 16px;
  background: #fff;
  border: 1px solid var(--ok-line);
  border-radius: var(--radius);
}

.estimate-range {
  margin: 0 0 6px;
  font-size: 1.5rem;
  font-weight: 750;
  letter-spacing: -0.01em;
  font-variant-numeric: tabular-nums;
}

.estimate-note {
  margin: 0 0 4px;
  font-size: 0.9rem;
  color: var(--ink-2);
}

/* ---- agents ---- */

.section-dark {
  color: #dfe7f1;
  background: linear-gradient(170deg, var(--navy) 0%, var(--navy-2) 100%);
}

.section-dark h2,
.section-dark h3 {
  color: #fff;
}

.section-dark .section-head p {
  color: #b9c8da;
}

.link-grid {
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 320px), 1fr));
  gap: 12px;
  margin: 0 0 28px;
  padding: 0;
  list-style: none;
}

.doc-link {
  display: flex;
  flex-direction: column;
  gap: 4px;
  height: 100%;
  padding: 16px 18px;
  color: #dfe7f1;
  text-decoration: none;
  background: rgba(255, 255, 255, 0.045);
  border: 1px solid rgba(255, 255, 255, 0.12);
  border-radius: var(--radius);
  transition: border-color 0.15s, background-color 0.15s;
}

.doc-link:hover {
  color: #fff;
  border-color: #8fc1ff;
  background: rgba(255, 255, 255, 0.08);
}

.doc-title {
  font-weight: 650;
  color: #fff;
}

.doc-link code {
  font-size: 0.85rem;
  color: #8fc1ff;
  overflow-wrap: anywhere;
}

.doc-desc {
  font-size: 0.9rem;
  color: #b9c8da;
}

.agent-grid {
  display: grid;
  gap: 16px;
}

@media (min-width: 820px) {
  .agent-grid {
    grid-template-columns: 1fr 1fr;
  }
}

.agent-box {
  padding: 20px;
  border-radius: var(--radius);
  background: rgba(0, 0, 0, 0.18);
  border: 1px solid rgba(255, 255, 255, 0.1);
  min-width: 0;
}

.agent-box p {
  color: #c7d4e4;
  margin-bottom: 12px;
}

.agent-box p:last-child {
  margin-bottom: 0;
}

.agent-box code {
  color: #d6e6ff;
}

.code {
  margin: 0;
  padding: 12px 14px;
  overflow-x: auto;
  background: rgba(0, 0, 0, 0.3);
  border-radius: 8px;
  color: #d6e6ff;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}

.section-dark :focus-visible {
  outline-color: var(--focus);
}

/* ---- footer ---- */

.site-footer {
  padding: 24px 0;
  color: var(--muted);
  font-size: 0.9rem;
  background: #fff;
  border-top: 1px solid var(--line);
}

.footer-inner {
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  gap: 8px 24px;
}

.footer-inner p {
  margin: 0;
}

.footer-inner strong {
  color: var(--ink);
}
`;
