/** HTTP device enrollment (§12): POST /v1/device-enrollments/redeem. */
import { Module } from '@nestjs/common';

import { ControlStore } from '../control/control-store';
import { RELAY_LOGGER, type JsonLogger } from '../logging/json-logger';
import { DEVICE_ENROLLMENT_SERVICE, DeviceEnrollmentController } from './device-enrollment.controller';
import { DeviceEnrollmentService } from './device-enrollment.service';

@Module({
  controllers: [DeviceEnrollmentController],
  providers: [
    {
      provide: DEVICE_ENROLLMENT_SERVICE,
      inject: [ControlStore, RELAY_LOGGER],
      useFactory: (control: ControlStore, logger: JsonLogger) => new DeviceEnrollmentService(control, logger),
    },
  ],
})
export class EnrollmentModule {}
