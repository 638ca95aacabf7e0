/**
 * The catalog SQL the worker's jobs run is the catalog package's own
 * repository; the jobs reach it through this file, like any other repository
 * of the app, which is where the lint rule allows database access.
 */
export { CatalogRepository } from '@rota/catalog/repository';
