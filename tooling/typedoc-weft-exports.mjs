// Weft's checks on the API reference. TypeDoc's own "referenced but not included" check skips types from
// packages other than the project's, and in one program over the workspace every @weft package is another
// package: this runs the same check for them. And typedoc.json's entry points must be the packages' exports.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  Application,
  DeclarationReflection,
  makeRecursiveVisitor,
  SignatureReflection,
  TypeParameterReflection,
} from 'typedoc';

/** @param {Application} app */
export function load(app) {
  app.on(Application.EVENT_BOOTSTRAP_END, () => {
    const root = join(import.meta.dirname, '..');
    const exported = [];
    for (const dir of readdirSync(join(root, 'packages'))) {
      const json = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
      if (json.private) continue;
      for (const [key, target] of Object.entries(json.exports ?? {})) {
        if (typeof target === 'string' && target.endsWith('.ts') && !key.includes('*')) {
          exported.push(join('packages', dir, target));
        }
      }
    }
    const listed = app.options.getValue('entryPoints').map((path) => relative(root, path));
    const missing = exported.filter((path) => !listed.includes(path));
    const extra = listed.filter((path) => !exported.includes(path));
    if (missing.length || extra.length) {
      app.logger.error(
        `typedoc.json's entryPoints must be the packages' exports: missing [${missing.join(', ')}], not exported [${extra.join(', ')}]`,
      );
    }
  });
  app.on(Application.EVENT_VALIDATE_PROJECT, (project) => {
    const warned = new Set();
    for (const owner of Object.values(project.reflections)) {
      const visitor = makeRecursiveVisitor({
        reference(type) {
          const key = type.symbolId?.getStableKey();
          if (
            type.reflection ||
            type.externalUrl ||
            type.isIntentionallyBroken() ||
            !type.package?.startsWith('@weft/') ||
            project.symbolIdHasBeenRemoved(type.symbolId) ||
            warned.has(key)
          ) {
            return;
          }
          warned.add(key);
          app.logger.validationWarning(
            `${type.qualifiedName}, defined in ${type.symbolId.packageName}/${type.symbolId.packagePath}, is referenced by ${owner.getFriendlyFullName()} but not included in the documentation`,
          );
        },
      });
      if ('type' in owner) owner.type?.visit(visitor);
      if (owner instanceof TypeParameterReflection) owner.default?.visit(visitor);
      if (owner instanceof DeclarationReflection) {
        for (const type of owner.implementedTypes ?? []) type.visit(visitor);
      }
      if (owner instanceof SignatureReflection) owner.type?.visit(visitor);
    }
  });
}
