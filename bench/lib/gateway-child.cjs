// The real gateway plus two benchmark routes answering the same handler
// (a service ping) either inside the gateway or through the transport.
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { RpcClient, loadConfig, pingAnswer } = require('@rota/service-kit');
const { createGateway } = require('../../apps/gateway/dist/app.factory');
const { GatewayConfig } = require('../../apps/gateway/dist/config');
const { Public } = require('../../apps/gateway/dist/auth/decorators');

class BenchController {
  constructor(rpc) {
    this.rpc = rpc;
  }
  local() {
    return pingAnswer('search');
  }
  viaTransport() {
    return this.rpc.send('search.ping', {});
  }
}
Reflect.defineMetadata('design:paramtypes', [RpcClient], BenchController);
Controller('bench')(BenchController);
for (const [method, path] of [
  ['local', 'local'],
  ['viaTransport', 'transport'],
]) {
  const descriptor = Object.getOwnPropertyDescriptor(BenchController.prototype, method);
  Get(path)(BenchController.prototype, method, descriptor);
  // Undocumented probe routes must still say how they authenticate.
  Public()(BenchController.prototype, method, descriptor);
}
class BenchModule {}
Module({ controllers: [BenchController] })(BenchModule);

(async () => {
  const config = loadConfig(GatewayConfig);
  const app = await createGateway(config, [BenchModule]);
  await app.listen(config.PORT, '127.0.0.1');
})();
