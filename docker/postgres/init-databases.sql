-- One database per app that owns tables: no app reads another's (ARCHITECTURE.md).
CREATE DATABASE relay_gateway;
CREATE DATABASE shield_analyzer;
CREATE DATABASE card_registry;
CREATE DATABASE console;
