/**
 * @module
 * The home page markup. Static: the catalog, the coverage answer and the form
 * results are built by `/assets/app.js` with `textContent`. No inline script,
 * no inline style, no event-handler attributes: the CSP allows only 'self'.
 */

/** The brand mark, also served as the favicon (`/assets/favicon.svg`). */
export const FAVICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/><rect x="7" y="7" width="18" height="4.5" rx="1.2" fill="#fff"/><rect x="7" y="13.75" width="18" height="4.5" rx="1.2" fill="#fff"/><rect x="7" y="20.5" width="18" height="4.5" rx="1.2" fill="#fff"/><circle cx="21.5" cy="9.25" r="1.1" fill="#1fb57a"/><circle cx="21.5" cy="16" r="1.1" fill="#1fb57a"/><circle cx="21.5" cy="22.75" r="1.1" fill="#f5b400"/></svg>
`;

const BRAND_MARK =
  `<svg class="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="7" fill="currentColor"/><rect x="7" y="7" width="18" height="4.5" rx="1.2" fill="#fff"/><rect x="7" y="13.75" width="18" height="4.5" rx="1.2" fill="#fff"/><rect x="7" y="20.5" width="18" height="4.5" rx="1.2" fill="#fff"/><circle cx="21.5" cy="9.25" r="1.1" fill="#1fb57a"/><circle cx="21.5" cy="16" r="1.1" fill="#1fb57a"/><circle cx="21.5" cy="22.75" r="1.1" fill="#f5b400"/></svg>`;

export const HOME_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>DC Field Services — on-site engineers for your datacenter</title>
<meta name="description" content="Remote hands, rack-and-stack, cabling, hardware swaps, decommissioning and audits in datacenters worldwide. Check coverage, see published rates and request a non-binding quote; no account needed.">
<meta name="color-scheme" content="light">
<meta name="theme-color" content="#0a1b2e">
<link rel="icon" type="image/svg+xml" href="/assets/favicon.svg">
<link rel="stylesheet" href="/assets/styles.css">
<link rel="service-desc" type="application/openapi+json" href="/api/v1/openapi.json">
<link rel="alternate" type="application/json" href="/.well-known/mcp.json" title="MCP tool descriptor">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>

<header class="site-header">
  <div class="wrap header-inner">
    <a class="brand" href="/">${BRAND_MARK}<span>DC Field Services</span></a>
    <nav class="site-nav" aria-label="Sections">
      <ul>
        <li><a href="#services">Services</a></li>
        <li><a href="#coverage">Coverage</a></li>
        <li><a href="#quote">Quote</a></li>
        <li><a href="#contact">Contact</a></li>
        <li><a href="#agents">Agents</a></li>
      </ul>
    </nav>
  </div>
</header>

<main id="main" tabindex="-1">
  <section class="hero" aria-labelledby="hero-title">
    <div class="wrap hero-grid">
      <div class="hero-copy">
        <p class="eyebrow">Datacenter field services</p>
        <h1 id="hero-title">Engineers at your rack, wherever your racks are.</h1>
        <p class="lead">Remote hands, rack-and-stack, structured cabling, hardware swaps, decommissioning and site audits in colocation facilities across Europe, the Americas, Asia-Pacific, the Middle East and Africa. Check coverage, see our published rates and ask for a quote, from this page, the REST API or an AI agent.</p>
        <div class="cta-row">
          <a class="btn btn-primary" href="#quote">Request a quote</a>
          <a class="btn btn-outline-light" href="#coverage">Check coverage</a>
        </div>
      </div>
      <ul class="assurances" aria-label="How your request is handled">
        <li>
          <h2 class="assurance-title">Anonymous</h2>
          <p>No account and no login. Use the forms below, the REST API or the MCP tools.</p>
        </li>
        <li>
          <h2 class="assurance-title">Reviewed by a person</h2>
          <p>Every lead and quote request is read by our team before anything happens.</p>
        </li>
        <li>
          <h2 class="assurance-title">Nothing billable</h2>
          <p>Submitting creates no order, invoice or dispatch, and changes no infrastructure.</p>
        </li>
        <li>
          <h2 class="assurance-title">Non-binding estimates</h2>
          <p>Quote estimates come from published rates; the binding quotation comes from a person.</p>
        </li>
      </ul>
    </div>
  </section>

  <noscript>
    <div class="wrap">
      <p class="notice notice-warn">The catalog, the coverage check and the forms on this page need JavaScript. Scripts and agents can use the <a href="/api/v1/openapi.json">REST API</a> directly.</p>
    </div>
  </noscript>

  <section id="services" class="section" aria-labelledby="services-title">
    <div class="wrap">
      <div class="section-head">
        <h2 id="services-title">Services and published rates</h2>
        <p>Rates are per engineer and hour, with a minimum booking per visit. Work outside business hours is charged at the multiplier shown; travel to sites outside covered cities may be charged on top.</p>
      </div>
      <p id="services-status" class="status" role="status">Loading the service catalog…</p>
      <ul id="service-list" class="service-grid"></ul>
    </div>
  </section>

  <section id="coverage" class="section section-alt" aria-labelledby="coverage-title">
    <div class="wrap split">
      <div class="split-intro">
        <h2 id="coverage-title">Check coverage</h2>
        <p>Enter the city of your site. Names match regardless of case, accents and common spellings, so <em>Zurich</em> finds Zürich. Add a two-letter country code when a name exists in several countries.</p>
        <p class="muted">For a city outside our coverage you see the nearest covered cities and their distance. You can still ask for a quote; travel costs may apply.</p>
      </div>
      <div class="card">
        <form id="coverage-form" class="form" action="/api/v1/locations" method="get" novalidate>
          <div class="form-grid form-grid-coverage">
            <div class="field">
              <label for="cov-city">City</label>
              <input id="cov-city" name="city" type="text" required maxlength="100" autocomplete="address-level2" placeholder="e.g. Zurich" aria-describedby="cov-city-error">
              <p id="cov-city-error" class="field-error" data-error-for="city" hidden></p>
            </div>
            <div class="field">
              <label for="cov-country">Country <span class="optional">optional</span></label>
              <input id="cov-country" name="country" type="text" maxlength="2" autocomplete="country" autocapitalize="characters" spellcheck="false" placeholder="CH" aria-describedby="cov-country-hint cov-country-error">
              <p id="cov-country-hint" class="hint">ISO code, e.g. DE</p>
              <p id="cov-country-error" class="field-error" data-error-for="country" hidden></p>
            </div>
          </div>
          <div class="form-actions">
            <button class="btn btn-primary" type="submit">Check coverage</button>
          </div>
        </form>
        <div id="coverage-result" class="result" aria-live="polite"></div>
      </div>
    </div>
  </section>

  <section id="quote" class="section" aria-labelledby="quote-title">
    <div class="wrap">
      <div class="section-head">
        <h2 id="quote-title">Request a quote</h2>
        <p>Describe the work and you get a request id and a budget estimate straight away, computed from the published rates. The estimate is non-binding: a member of our team reviews every request and replies by email with the actual quotation. Nothing is ordered or scheduled.</p>
      </div>
      <div class="quote-layout">
      <div class="card">
        <form id="quote-form" class="form" action="/api/v1/quotes" method="post" novalidate>
          <p class="form-note"><span class="req" aria-hidden="true">*</span> Required field</p>
          <fieldset>
            <legend>Contact</legend>
            <div class="form-grid">
              <div class="field">
                <label for="q-company">Company <span class="req" aria-hidden="true">*</span></label>
                <input id="q-company" name="company" type="text" required maxlength="200" autocomplete="organization" aria-describedby="q-company-error">
                <p id="q-company-error" class="field-error" data-error-for="company" hidden></p>
              </div>
              <div class="field">
                <label for="q-contact">Contact name <span class="req" aria-hidden="true">*</span></label>
                <input id="q-contact" name="contact_name" type="text" required maxlength="200" autocomplete="name" aria-describedby="q-contact-error">
                <p id="q-contact-error" class="field-error" data-error-for="contact_name" hidden></p>
              </div>
              <div class="field">
                <label for="q-email">Email <span class="req" aria-hidden="true">*</span></label>
                <input id="q-email" name="email" type="email" required maxlength="254" autocomplete="email" spellcheck="false" aria-describedby="q-email-error">
                <p id="q-email-error" class="field-error" data-error-for="email" hidden></p>
              </div>
              <div class="field">
                <label for="q-phone">Phone <span class="optional">optional</span></label>
                <input id="q-phone" name="phone" type="tel" maxlength="40" autocomplete="tel" aria-describedby="q-phone-error">
                <p id="q-phone-error" class="field-error" data-error-for="phone" hidden></p>
              </div>
            </div>
          </fieldset>
          <fieldset>
            <legend>Site</legend>
            <div class="form-grid">
              <div class="field">
                <label for="q-city">City <span class="req" aria-hidden="true">*</span></label>
                <input id="q-city" name="city" type="text" required maxlength="200" autocomplete="address-level2" aria-describedby="q-city-error">
                <p id="q-city-error" class="field-error" data-error-for="city" hidden></p>
              </div>
              <div class="field">
                <label for="q-country">Country <span class="optional">optional</span></label>
                <input id="q-country" name="country" type="text" maxlength="2" autocomplete="country" autocapitalize="characters" spellcheck="false" placeholder="DE" aria-describedby="q-country-hint q-country-error">
                <p id="q-country-hint" class="hint">Two-letter ISO code</p>
                <p id="q-country-error" class="field-error" data-error-for="country" hidden></p>
              </div>
              <div class="field span-2">
                <label for="q-site">Site address <span class="optional">optional</span></label>
                <input id="q-site" name="site_address" type="text" maxlength="500" autocomplete="street-address" placeholder="Facility, street, suite or cage" aria-describedby="q-site-error">
                <p id="q-site-error" class="field-error" data-error-for="site_address" hidden></p>
              </div>
            </div>
          </fieldset>
          <fieldset>
            <legend>Work</legend>
            <div class="form-grid">
              <div class="field span-2">
                <label for="q-service">Service <span class="req" aria-hidden="true">*</span></label>
                <select id="q-service" name="service_type" required aria-describedby="q-service-error">
                  <option value="">Choose a service…</option>
                </select>
                <p id="q-service-error" class="field-error" data-error-for="service_type" hidden></p>
              </div>
              <div class="field span-2">
                <label for="q-description">Description of the work <span class="req" aria-hidden="true">*</span></label>
                <textarea id="q-description" name="description" required maxlength="5000" rows="5" placeholder="What needs doing, on which equipment, any access or safety requirements" aria-describedby="q-description-error"></textarea>
                <p id="q-description-error" class="field-error" data-error-for="description" hidden></p>
              </div>
              <div class="field">
                <label for="q-date">Preferred date <span class="optional">optional</span></label>
                <input id="q-date" name="requested_date" type="date" aria-describedby="q-date-error">
                <p id="q-date-error" class="field-error" data-error-for="requested_date" hidden></p>
              </div>
              <div class="field">
                <label for="q-time">Preferred start time <span class="optional">optional</span></label>
                <input id="q-time" name="requested_time" type="time" aria-describedby="q-time-hint q-time-error">
                <p id="q-time-hint" class="hint">Local time at the site</p>
                <p id="q-time-error" class="field-error" data-error-for="requested_time" hidden></p>
              </div>
              <div class="field">
                <label for="q-engineers">Engineers <span class="optional">optional</span></label>
                <input id="q-engineers" name="engineer_count" type="number" inputmode="numeric" min="1" max="50" step="1" placeholder="1" aria-describedby="q-engineers-error">
                <p id="q-engineers-error" class="field-error" data-error-for="engineer_count" hidden></p>
              </div>
              <div class="field">
                <label for="q-hours">Estimated hours <span class="optional">optional</span></label>
                <input id="q-hours" name="estimated_hours" type="number" inputmode="decimal" min="0.25" max="1000" step="0.25" placeholder="e.g. 3" aria-describedby="q-hours-hint q-hours-error">
                <p id="q-hours-hint" class="hint">Per engineer; the minimum applies if empty</p>
                <p id="q-hours-error" class="field-error" data-error-for="estimated_hours" hidden></p>
              </div>
              <div class="field span-2 field-check">
                <input id="q-ooh" name="out_of_hours" type="checkbox" aria-describedby="q-ooh-hint q-ooh-error">
                <label for="q-ooh">Outside business hours</label>
                <p id="q-ooh-hint" class="hint">Nights, weekends and public holidays, at the service's out-of-hours multiplier</p>
                <p id="q-ooh-error" class="field-error" data-error-for="out_of_hours" hidden></p>
              </div>
            </div>
          </fieldset>
          <div class="form-actions">
            <button class="btn btn-primary" type="submit">Request quote</button>
            <p class="form-fineprint">Queued for human review. No order, invoice or dispatch is created.</p>
          </div>
        </form>
        <div id="quote-result" class="result" aria-live="polite"></div>
      </div>
      <aside class="side-panel" aria-labelledby="quote-steps-title">
        <h3 id="quote-steps-title">What happens next</h3>
        <ol class="steps">
          <li><strong>Instant estimate.</strong> You get a request id and a budget range computed from the published rates.</li>
          <li><strong>Human review.</strong> Our team checks scope, site access and engineer availability.</li>
          <li><strong>Written quotation.</strong> We reply by email with the actual quotation.</li>
          <li><strong>Your decision.</strong> Quotations are accepted with our team directly, never online. Nothing is ordered, scheduled or billed before that.</li>
        </ol>
      </aside>
      </div>
    </div>
  </section>

  <section id="contact" class="section section-alt" aria-labelledby="contact-title">
    <div class="wrap split">
      <div class="split-intro">
        <h2 id="contact-title">Not sure yet? Get in touch</h2>
        <p>Tell us about your sites and what you need, and we get back to you by email. An email address and a short description are enough.</p>
        <p class="muted">Your message is reviewed by a person. We use your details only to answer your request.</p>
      </div>
      <div class="card">
        <form id="lead-form" class="form" action="/api/v1/intake" method="post" novalidate>
          <div class="form-grid">
            <div class="field span-2">
              <label for="l-email">Email <span class="req" aria-hidden="true">*</span></label>
              <input id="l-email" name="email" type="email" required maxlength="254" autocomplete="email" spellcheck="false" aria-describedby="l-email-error">
              <p id="l-email-error" class="field-error" data-error-for="email" hidden></p>
            </div>
            <div class="field span-2">
              <label for="l-description">How can we help? <span class="req" aria-hidden="true">*</span></label>
              <textarea id="l-description" name="description" required maxlength="5000" rows="4" aria-describedby="l-description-error"></textarea>
              <p id="l-description-error" class="field-error" data-error-for="description" hidden></p>
            </div>
            <div class="field">
              <label for="l-company">Company <span class="optional">optional</span></label>
              <input id="l-company" name="company" type="text" maxlength="200" autocomplete="organization" aria-describedby="l-company-error">
              <p id="l-company-error" class="field-error" data-error-for="company" hidden></p>
            </div>
            <div class="field">
              <label for="l-contact">Your name <span class="optional">optional</span></label>
              <input id="l-contact" name="contact_name" type="text" maxlength="200" autocomplete="name" aria-describedby="l-contact-error">
              <p id="l-contact-error" class="field-error" data-error-for="contact_name" hidden></p>
            </div>
            <div class="field">
              <label for="l-city">City <span class="optional">optional</span></label>
              <input id="l-city" name="city" type="text" maxlength="200" autocomplete="address-level2" aria-describedby="l-city-error">
              <p id="l-city-error" class="field-error" data-error-for="city" hidden></p>
            </div>
            <div class="field">
              <label for="l-service">Service <span class="optional">optional</span></label>
              <select id="l-service" name="service_type" aria-describedby="l-service-error">
                <option value="">Not sure yet</option>
              </select>
              <p id="l-service-error" class="field-error" data-error-for="service_type" hidden></p>
            </div>
          </div>
          <div class="form-actions">
            <button class="btn btn-primary" type="submit">Send message</button>
          </div>
        </form>
        <div id="lead-result" class="result" aria-live="polite"></div>
      </div>
    </div>
  </section>

  <section id="agents" class="section section-dark" aria-labelledby="agents-title">
    <div class="wrap">
      <div class="section-head">
        <h2 id="agents-title">For AI agents and developers</h2>
        <p>Everything on this page is also available to software. The public endpoints and the MCP tools are anonymous; a read-only agent API is protected by OAuth 2.0 client credentials with self-service registration and read scopes only. No interface can order, dispatch, accept a quote or bill.</p>
      </div>
      <ul class="link-grid">
        <li><a class="doc-link" href="/.well-known/mcp.json"><span class="doc-title">MCP tool descriptor</span><code>/.well-known/mcp.json</code><span class="doc-desc">The four tools, their JSON schemas, HTTP mappings and safety notes.</span></a></li>
        <li><a class="doc-link" href="/api/v1/mcp/server-card"><span class="doc-title">MCP server card</span><code>/api/v1/mcp/server-card</code><span class="doc-desc">How to connect: streamable HTTP and supported protocol versions.</span></a></li>
        <li><a class="doc-link" href="/.well-known/ai-catalog.json"><span class="doc-title">AI catalog</span><code>/.well-known/ai-catalog.json</code><span class="doc-desc">Discovery entry pointing to the server card.</span></a></li>
        <li><a class="doc-link" href="/api/v1/openapi.json"><span class="doc-title">OpenAPI 3.1 document</span><code>/api/v1/openapi.json</code><span class="doc-desc">Every REST endpoint with schemas, errors and examples.</span></a></li>
        <li><a class="doc-link" href="/.well-known/oauth-authorization-server"><span class="doc-title">OAuth authorization server</span><code>/.well-known/oauth-authorization-server</code><span class="doc-desc">RFC 8414 metadata: registration, token and revocation endpoints.</span></a></li>
        <li><a class="doc-link" href="/.well-known/oauth-protected-resource"><span class="doc-title">OAuth protected resource</span><code>/.well-known/oauth-protected-resource</code><span class="doc-desc">RFC 9728 metadata of the read-only agent API and its scopes.</span></a></li>
      </ul>
      <div class="agent-grid">
        <div class="agent-box">
          <h3>MCP over streamable HTTP</h3>
          <p>Point any MCP client at the endpoint below. Tools: <code>check_coverage</code>, <code>list_services</code>, <code>submit_lead</code>, <code>request_quote</code>.</p>
          <pre class="code"><code><span data-origin>https://this-host</span>/api/v1/mcp</code></pre>
        </div>
        <div class="agent-box">
          <h3>WebMCP in this page</h3>
          <p id="webmcp-status" role="status">When your browser offers a model context, this page registers the same four tools with it, using the schemas from the tool descriptor.</p>
        </div>
      </div>
    </div>
  </section>
</main>

<footer class="site-footer">
  <div class="wrap footer-inner">
    <p><strong>DC Field Services</strong> · Requests are non-binding and reviewed by a person. Nothing billable is created online.</p>
    <p><a href="/api/v1/openapi.json">API</a> · <a href="/.well-known/mcp.json">MCP</a> · <a href="/healthz">Status</a></p>
  </div>
</footer>
</body>
</html>
`;
