/**
 * Herald's one template engine: the API uses it to validate templates, list their variables and
 * preview them; the worker uses it to render each notification. Templates are Handlebars
 * (docs/api.md#push-templates); push text is plain text, so nothing is HTML-escaped.
 *
 * - engine.ts: the Handlebars environment, the render budget, the errors;
 * - analysis.ts: reading a template (its variables, what it may use);
 * - compiler.ts: compiled templates and their cache.
 */
export { isTemplateError, RenderTooLongError, RENDER_MAX_ITERATIONS, RENDER_MAX_LOOP_OUTPUT, RENDER_MAX_OUTPUT, TEMPLATE_MAX_DEPTH, TemplateRenderError, TemplateSyntaxError, type TemplateField, type TemplateVariables } from './engine';
export { templateVariables, validateTemplate } from './analysis';
export { compileTemplate, createTemplateCompiler, type CachedTemplate, type CompiledTemplate, type RenderedTemplate, type TemplateSource } from './compiler';
