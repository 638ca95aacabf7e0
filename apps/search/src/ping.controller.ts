import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { pingAnswer } from '@rota/service-kit';

@Controller()
export class PingController {
  @MessagePattern('search.ping')
  ping() {
    return pingAnswer('search');
  }
}
