/// The studio's API as an OpenAPI 3.1 document, served at `/api/openapi.yaml`; a test checks
/// that it names every route ``Studio/routes`` lists and no other.
public enum StudioOpenAPI {
    /// The document, YAML.
    public static let document = #"""
openapi: 3.1.0
info:
  title: Strata Studio API
  version: "1"
  description: >-
    The JSON API under `strata studio`'s page. Every request carries the access token the command
    printed: `?token=` (kept in the `strata-studio` cookie), that cookie, or `Authorization: Bearer`.
    The Host must be 127.0.0.1 or localhost at the studio's port; a request that writes must come
    from the studio's own origin. Errors are `{"error": {"code", "message", "column"?}}`.
security:
  - token: []
  - cookie: []
  - bearer: []
components:
  securitySchemes:
    token: {type: apiKey, in: query, name: token}
    cookie: {type: apiKey, in: cookie, name: strata-studio}
    bearer: {type: http, scheme: bearer}
  parameters:
    entity: {name: entity, in: path, required: true, schema: {type: string}, description: The entity's name.}
    key: {name: key, in: path, required: true, schema: {type: string}, description: A primary key as text (a number's digits, a string itself).}
    limit: {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 1000, default: 50}}
  schemas:
    Error:
      type: object
      properties:
        error:
          type: object
          required: [code, message]
          properties:
            code: {type: string}
            message: {type: string}
            column: {type: integer, description: The 1-based column of a predicate's parse error.}
    Record:
      type: object
      properties:
        key: {type: string}
        record: {type: object}
    ImportReport:
      description: An import's report, the form strata import --format json prints too (ImportReport.json).
      type: object
      properties:
        entity: {type: string}
        dryRun: {type: boolean}
        records: {type: integer}
        inserted: {type: integer}
        updated: {type: integer}
        unchanged: {type: integer}
        deleted: {type: integer}
        skipped: {type: integer}
        failures:
          type: array
          items:
            type: object
            properties:
              record: {type: [integer, "null"], description: "The record's number in the input, counted from 1."}
              code: {type: string}
              message: {type: string}
        related:
          type: object
          description: By related entity, what the import did to its nested or linked records.
          additionalProperties:
            type: object
            properties:
              inserted: {type: integer}
              updated: {type: integer}
              unchanged: {type: integer}
              deleted: {type: integer}
              linked: {type: integer}
              unlinked: {type: integer}
        seconds: {type: number}
        summary: {type: string}
  responses:
    Error:
      description: What failed, and where.
      content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
paths:
  /:
    get:
      summary: The studio's page.
      responses: {"200": {description: HTML, content: {text/html: {}}}}
  /studio.js:
    get:
      summary: The page's script.
      responses: {"200": {description: JavaScript, content: {text/javascript: {}}}}
  /studio.css:
    get:
      summary: The page's style sheet.
      responses: {"200": {description: CSS, content: {text/css: {}}}}
  /api/openapi.yaml:
    get:
      summary: This document.
      responses: {"200": {description: YAML, content: {application/yaml: {}}}}
  /api/studio:
    get:
      summary: The studio itself - whether it may write, and the store's path.
      responses: {"200": {description: "{writable, path}", content: {application/json: {}}}}
  /api/entities:
    get:
      summary: Every entity with its record count, bytes, key, and numbers of indexes and relationships.
      responses: {"200": {description: "{entities: [...]}", content: {application/json: {}}}}
  /api/entities/{entity}/schema:
    get:
      summary: An entity's key, fields (name, type, optional, JSON key, default), indexes, and its schema-file entry.
      parameters: [{$ref: "#/components/parameters/entity"}]
      responses: {"200": {description: The schema., content: {application/json: {}}}, "404": {$ref: "#/components/responses/Error"}}
  /api/entities/{entity}/indexes:
    get:
      summary: An entity's indexes with their entries and bytes.
      parameters: [{$ref: "#/components/parameters/entity"}]
      responses: {"200": {description: The indexes., content: {application/json: {}}}, "404": {$ref: "#/components/responses/Error"}}
  /api/relationships:
    get:
      summary: Every relationship of every entity.
      responses: {"200": {description: "{entities, relationships}", content: {application/json: {}}}}
  /api/entities/{entity}/records:
    get:
      summary: A page of records by key (keyset paging, never an offset), in key order or an indexed field's.
      parameters:
        - {$ref: "#/components/parameters/entity"}
        - {$ref: "#/components/parameters/limit"}
        - {name: after, in: query, schema: {type: string}, description: The key of the last record of the previous page (its `next`).}
        - {name: sort, in: query, schema: {type: string}, description: The primary key (default) or a field an index starts with.}
        - {name: desc, in: query, schema: {type: boolean}}
      responses:
        "200": {description: "{entity, sort, descending, columns, records: [Record], next}", content: {application/json: {}}}
        "400": {$ref: "#/components/responses/Error"}
    put:
      summary: Saves one record (a JSON object) through the importer, after its dry run accepts it. Write mode only.
      parameters: [{$ref: "#/components/parameters/entity"}]
      requestBody: {required: true, content: {application/json: {schema: {type: object}}}}
      responses:
        "200": {description: The import's report., content: {application/json: {schema: {$ref: "#/components/schemas/ImportReport"}}}}
        "400": {$ref: "#/components/responses/Error"}
        "403": {$ref: "#/components/responses/Error"}
        "413": {$ref: "#/components/responses/Error"}
  /api/entities/{entity}/records/{key}:
    get:
      summary: One record and its related records.
      parameters: [{$ref: "#/components/parameters/entity"}, {$ref: "#/components/parameters/key"}]
      responses: {"200": {description: "{entity, key, record, related}", content: {application/json: {}}}, "404": {$ref: "#/components/responses/Error"}}
    delete:
      summary: Deletes one record. Write mode only.
      parameters: [{$ref: "#/components/parameters/entity"}, {$ref: "#/components/parameters/key"}]
      responses: {"200": {description: "{deleted: true}", content: {application/json: {}}}, "403": {$ref: "#/components/responses/Error"}, "404": {$ref: "#/components/responses/Error"}}
  /api/entities/{entity}/import:
    post:
      summary: Imports a JSON document into the entity; with dryRun (the default) reports without committing. Write mode only.
      parameters:
        - {$ref: "#/components/parameters/entity"}
        - {name: dryRun, in: query, schema: {type: boolean, default: true}}
      requestBody: {required: true, content: {application/json: {}}}
      responses:
        "200": {description: The import's report., content: {application/json: {schema: {$ref: "#/components/schemas/ImportReport"}}}}
        "400": {$ref: "#/components/responses/Error"}
        "403": {$ref: "#/components/responses/Error"}
        "413": {$ref: "#/components/responses/Error"}
  /api/entities/{entity}/query:
    get:
      summary: Runs a predicate (the tool's format language) and returns its rows and its analyzed plan (as `strata explain --analyze`).
      parameters:
        - {$ref: "#/components/parameters/entity"}
        - {$ref: "#/components/parameters/limit"}
        - {name: predicate, in: query, schema: {type: string}}
        - {name: sort, in: query, schema: {type: string}}
      responses:
        "200": {description: "{entity, predicate, rows, plan, tree}", content: {application/json: {}}}
        "400": {description: A predicate that does not parse; the error has its column., content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
        "408": {$ref: "#/components/responses/Error"}
  /api/stats:
    get:
      summary: Map size and use, readers, pages in the file, in use and free, and each entity's bytes.
      responses: {"200": {description: Statistics., content: {application/json: {}}}}
  /api/changes:
    get:
      summary: The change log's commits, one object per change as `strata changes` writes it.
      parameters:
        - {$ref: "#/components/parameters/limit"}
        - {name: after, in: query, schema: {type: integer}, description: A sequence number; the newest commits when absent.}
      responses: {"200": {description: "{enabled, first, last, changes}", content: {application/json: {}}}}
  /api/migrations:
    get:
      summary: The migrations the store has run.
      responses: {"200": {description: "{migrations: [{order, date, name}]}", content: {application/json: {}}}}
  /api/verify:
    get:
      summary: Checks every page, record and index entry, as `strata verify` does.
      responses: {"200": {description: "{pages, databases, consistent, entities}", content: {application/json: {}}}}
  /api/events:
    get:
      summary: Server-sent events, one `commit` event per commit of any process, with the snapshot id and every entity's count.
      responses: {"200": {description: An event stream., content: {text/event-stream: {}}}}
"""#
}
